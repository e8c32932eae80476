"""What an installed sinpe can do, as JSON: run with the Python of the environment to test.

Every module the package lists (``sinpe.SUBMODULES``, read from the installed package,
so a new module is probed without a list here) either imports or names the extra it
needs; its data files are there (``py.typed``, the recorded PyTorch layers); and the
mpmath reference works or names ``sinpe[reference]``. ``tests/test_wheel.py`` runs it in
a NumPy-only install, ``scripts/notebooks.py validate --reader`` in the reader's venv,
which has every extra (issue 29: one fresh install per kind, not one per test)::

    path/to/python -m scripts.wheel_probe
"""

import importlib
import json
from importlib import resources


def probe() -> dict:
    import numpy as np

    import sinpe

    result: dict = {"modules": {}}
    for name in ["sinpe", *(f"sinpe.{module}" for module in sinpe.SUBMODULES)]:
        try:
            importlib.import_module(name)
            result["modules"][name] = "ok"
        except ModuleNotFoundError as error:
            result["modules"][name] = str(error)
    result["typed"] = resources.files("sinpe").joinpath("py.typed").is_file()
    result["table"] = float(sinpe.positional_encoding(1, 8)[0])
    from sinpe.lab import pytorch_record

    version, layers = pytorch_record.recorded_layers()  # the record is package data
    worst = max(float(np.abs(case.run() - case.outputs).max()) for case in layers)
    result["recorded"] = [version, len(layers), worst]
    try:
        sinpe.numerics.reference_encoding([1.0], 2)
        result["reference"] = "ok"
    except ModuleNotFoundError as error:
        result["reference"] = str(error)
    return result


if __name__ == "__main__":
    print(json.dumps(probe()))
