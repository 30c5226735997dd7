"""Records, span algebra and columnar run/qrels tables: the data every layer above passes around."""
