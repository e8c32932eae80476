"""``python -m sinpe inspect PATH``: the ``sinpe`` command (:mod:`sinpe.cli`)."""

from sinpe.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
