"""Helpers for the GPU barriers course: grading (grading.py), widgets and pictures."""

__all__ = ["grading"]
