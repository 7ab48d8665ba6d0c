"""anydnn.Error: a failed library call, with its miopenStatus_t and the library's reason."""


class Error(RuntimeError):
    """Raised when a call into libMIOpen fails.

    status: the miopenStatus_t value (e.g. 3 for miopenStatusBadParm); status_name: its name;
    reason: the one line the library logged for the failure ("<function>: <why>").
    """

    def __init__(self, status: int, status_name: str, reason: str):
        super().__init__(f"{status_name} ({status}): {reason}")
        self.status = status
        self.status_name = status_name
        self.reason = reason

    def __reduce__(self):
        return (Error, (self.status, self.status_name, self.reason))
