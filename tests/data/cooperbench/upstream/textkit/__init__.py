from textkit.core import shout

__all__ = ["shout"]
