"""Evaluation suites: the Bob demo suite and MetaQA."""
