def shout(text):
    """Upper-case text with an exclamation mark."""
    return text.upper() + "!"
