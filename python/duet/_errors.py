"""duet's exceptions: one class per exit-code category a library call can give
(runtime/cli/ExitCodes.h, include/duet/status.h; docs/python.md lists them)."""


class Error(Exception):
    """A duet call failed. `message` is duet's own line; `code` the exit code
    `duet` would have exited with (docs/cli.md)."""

    code = 1
    category = "failure"

    def __init__(self, message):
        super().__init__(message)
        self.message = message


class BadInputError(Error, ValueError):
    """The model, program or input is malformed or does not fit the call."""

    code = 2
    category = "bad-input"


class UnsupportedOpError(Error):
    """The model uses an op, dtype or backend this build cannot handle."""

    code = 3
    category = "unsupported"


class StrictModeError(Error):
    """strict=True and some op fell to the portable kernels."""

    code = 4
    category = "strict-fallback"


class IOError(Error, OSError):  # noqa: A001 - named after duet's category
    """A file could not be read or written."""

    code = 5
    category = "io-error"


_BY_CODE = {cls.code: cls for cls in (Error, BadInputError, UnsupportedOpError,
                                      StrictModeError, IOError)}


def raise_status(code, message):
    """Raises the exception for a duet Status (called by the _duet module)."""
    raise _BY_CODE.get(code, Error)(message)
