"""molspace's version; the npm package and the widget module carry the same."""

__version__ = "0.1.0"
#: Semver range the kernel asks the page's widget module to satisfy.
MODULE_VERSION_RANGE = "^0.1.0"
MODULE_NAME = "molspace"
