"""molspace's version, from one place: ``package.json``, carried into the generated manifest.

The npm package, the Python package (hatch-nodejs-version) and the widget module
all take it from there.
"""

from .contract import manifest

__version__: str = manifest()["versions"]["molspace"]
#: Semver range the kernel asks the page's widget module to satisfy.
MODULE_VERSION_RANGE = f"^{__version__}"
MODULE_NAME = "molspace"
