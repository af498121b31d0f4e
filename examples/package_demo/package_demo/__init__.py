"""package_demo: a package that ships gradc-compiled kernels in its wheel.

The artifact ``kernels.gradc`` beside this file was built from ``kernels.py`` by the
package's build step (``gradc.setuptools.build_py``); importing the package only loads it
(about a millisecond per object), it never compiles.
"""

from pathlib import Path

import gradc

ARTIFACT = Path(__file__).with_name("kernels.gradc")

_lib = gradc.load(ARTIFACT)

softplus = _lib.softplus
energy = _lib.energy
d_softplus = _lib.d_softplus
d_energy = _lib.d_energy

__all__ = ["ARTIFACT", "d_energy", "d_softplus", "energy", "softplus"]
