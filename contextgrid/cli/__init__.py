"""The command line: one module per command, and ``main`` that dispatches to them."""
