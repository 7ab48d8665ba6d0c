#!/usr/bin/env bash
# MIOPEN_ENABLE_LOGGING_CMD=1 makes the library log "./bin/MIOpenDriver ..." lines. Run the
# driver once with it on, take the first [<tag>] line, and run that line verbatim from the build
# directory: it must reproduce and verify the same problem (print <verified-text>).
#   replay_logged_command.sh <build-dir> <tag> <verified-text> <driver args...>
set -eu
build=$1; tag=$2; verified=$3; shift 3
cd "$build"
log=$(MIOPEN_ENABLE_LOGGING_CMD=1 ./bin/MIOpenDriver "$@" 2>&1)
echo "$log"
line=$(echo "$log" | grep -m1 "Command \[$tag\] ./bin/MIOpenDriver" || true)
[ -n "$line" ] || { echo "FAIL: no $tag line"; exit 1; }
cmd=${line#*\] }
echo "replaying: $cmd"
out=$(eval "$cmd" 2>&1)
echo "$out"
echo "$out" | grep -q "$verified" || { echo "FAIL: replay did not verify"; exit 1; }
# The replay must describe the same problem: its own logged line equals the first one.
again=$(cd "$build" && MIOPEN_ENABLE_LOGGING_CMD=1 eval "$cmd" 2>&1 | grep -m1 "Command \[$tag\]" || true)
[ "$again" = "$line" ] || { echo "FAIL: replay logged a different problem: $again"; exit 1; }
