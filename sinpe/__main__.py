"""``python -m sinpe inspect PATH``: the ``sinpe`` command (:mod:`sinpe.checkpoint.cli`)."""

from sinpe.checkpoint.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
