"""The full depth of an import (issue 10 item 3): the model reads the author's chapters in order."""
