"""The project's tools: ``python -m scripts.<name>`` from the repository root.

Each is a module of this package and imports the others as ``from scripts import name``
(the tests too); none puts a folder on ``sys.path`` or loads a sibling by its path.
"""
