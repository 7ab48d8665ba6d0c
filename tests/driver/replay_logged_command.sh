#!/usr/bin/env bash
# MIOPEN_ENABLE_LOGGING_CMD=1 makes the library log "./bin/MIOpenDriver ..." lines. Run the
# driver once with it on, take the [LogCmdConvolution] line, and run that line verbatim from
# the build directory: it must reproduce and verify the same problem.
#   replay_logged_command.sh <build-dir> <driver args...>
set -eu
build=$1; shift
cd "$build"
log=$(MIOPEN_ENABLE_LOGGING_CMD=1 ./bin/MIOpenDriver "$@" 2>&1)
echo "$log"
line=$(echo "$log" | grep -m1 'Command \[LogCmdConvolution\] ./bin/MIOpenDriver' || true)
[ -n "$line" ] || { echo "FAIL: no LogCmdConvolution line"; exit 1; }
cmd=${line#*\] }
echo "replaying: $cmd"
out=$(eval "$cmd" 2>&1)
echo "$out"
echo "$out" | grep -q "Verifies OK on CPU reference" || { echo "FAIL: replay did not verify"; exit 1; }
