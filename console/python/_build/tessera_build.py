"""A minimal PEP 517 build backend for the ``tessera`` package: a pure-Python
wheel of ``tessera/*.py``, standard library only, so that ``pip install`` of
this folder needs no network (setuptools would have to be downloaded into
pip's isolated build environment). Editable installs are not supported: put
``console/python`` on ``PYTHONPATH`` instead."""

import base64
import hashlib
import os
import tarfile
import zipfile

NAME = "tessera"
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _version():
    with open(os.path.join(HERE, "tessera", "__init__.py")) as f:
        for line in f:
            if line.startswith("__version__"):
                return line.split("=")[1].strip().strip("\"'")
    raise RuntimeError("no __version__ in tessera/__init__.py")


def _metadata(version):
    return ("Metadata-Version: 2.1\n"
            f"Name: {NAME}\n"
            f"Version: {version}\n"
            "Summary: Python client and PyTorch datasets for the Tessera storage cluster\n"
            "Requires-Python: >=3.9\n"
            "Provides-Extra: torch\n"
            "Requires-Dist: torch; extra == \"torch\"\n"
            "Requires-Dist: numpy; extra == \"torch\"\n"
            "Requires-Dist: pillow; extra == \"torch\"\n")


def _sources():
    pkg = os.path.join(HERE, "tessera")
    for name in sorted(os.listdir(pkg)):
        if name.endswith(".py"):
            yield f"tessera/{name}", os.path.join(pkg, name)


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def _record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    version = _version()
    dist_info = f"{NAME}-{version}.dist-info"
    filename = f"{NAME}-{version}-py3-none-any.whl"
    files = []
    for arc, path in _sources():
        with open(path, "rb") as f:
            files.append((arc, f.read()))
    files.append((f"{dist_info}/METADATA", _metadata(version).encode()))
    files.append((f"{dist_info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: tessera_build\nRoot-Is-Purelib: true\n"
                                        b"Tag: py3-none-any\n"))
    files.append((f"{dist_info}/top_level.txt", b"tessera\n"))
    record = [_record_line(arc, data) for arc, data in files] + [f"{dist_info}/RECORD,,"]
    files.append((f"{dist_info}/RECORD", ("\n".join(record) + "\n").encode()))
    with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w", zipfile.ZIP_DEFLATED) as z:
        for arc, data in files:
            z.writestr(arc, data)
    return filename


def build_sdist(sdist_directory, config_settings=None):
    version = _version()
    base = f"{NAME}-{version}"
    filename = f"{base}.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz") as t:
        for rel in ["pyproject.toml", "_build/tessera_build.py"] + [a for a, _ in _sources()]:
            t.add(os.path.join(HERE, rel), f"{base}/{rel}")
        info = _metadata(version).encode()
        import io
        ti = tarfile.TarInfo(f"{base}/PKG-INFO")
        ti.size = len(info)
        t.addfile(ti, io.BytesIO(info))
    return filename
