"""Session files: export sessions to files (JSONL, HAR, HTML) and import them back."""
