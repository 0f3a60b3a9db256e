"""harness/run.py's parts (see its docstring); run.py is the entry point."""
