"""A reply caught in a loop: the same long line or sentence again and again, cut off early.

A small model sometimes loops: it writes one line (a tool call, a docstring, a sentence of its
explanation with a new number in front) over and over until its answer budget runs out, and
the turn ends `incomplete_model_turn` anyway, after 2,048 tokens, minutes on a CPU in which the
other candidates of a search share the machine. In the 1,694 live replies committed under
measurements/ and recordings/ (2026-12-06), 31 ran out of answer; 12 of them were such loops,
and with STOP_REPEATS the loop is seen after 12 to 87 percent of its text (most before a third);
no reply that ended by itself would have been cut.

`Repeats(limit).feed(text)` reads a reply's content as it streams and returns the repeated unit
the moment one reaches `limit` repeats (else None). A unit is a line, or a sentence ending in
. ! or ?; it counts when it is at least MIN_CHARS long once its whitespace is collapsed and its
numbers written as "#" (the loops number their paragraphs, "30.", "31.", ...). Each unit is
normalized once, when it ends, so a reply of any length is read in linear time.

What this file deliberately is not: a judge of what the model says (the turn is cut as one that
ran out of answer, and nothing of it runs), or a reader of calls written as text.
"""
import re

STOP_REPEATS = 8  # the settings' default: eight times the same long unit in one reply is a loop
MIN_CHARS = 40    # shorter units (`else:`, `return result`, `}`) repeat in any code
UNIT_KEY = 300    # characters of a unit kept as its key: a loop repeats its start too
BOUNDARY = re.compile(r"\n|(?<=[.!?])\s")
DIGITS = re.compile(r"\d+")


class Repeats:
    """The units of one reply so far, counted; `limit` 0 never finds a loop."""

    def __init__(self, limit):
        self.limit, self.counts, self.unit, self.after_stop = limit, {}, [], False

    def feed(self, text):
        """Read the next fragment; the repeated unit (normalized, at most UNIT_KEY characters)
        once one reaches the limit, else None."""
        if not self.limit or not isinstance(text, str) or not text:
            return None
        cuts = [match.end() for match in BOUNDARY.finditer(text)]
        if self.after_stop and text[0] in " \t\r" and (not cuts or cuts[0] != 1):
            cuts.insert(0, 1)  # the sentence's stop came at the end of the fragment before
        start = 0
        for cut in cuts:
            self.unit.append(text[start:cut])
            start, unit, self.unit = cut, "".join(self.unit), []
            found = self._count(unit)
            if found:
                return found
        self.unit.append(text[start:])
        self.after_stop = text[-1] in ".!?"
        return None

    def _count(self, unit):
        if len(unit) < MIN_CHARS:  # normalizing only shortens a unit: too short already, nothing to do
            return None
        key = DIGITS.sub("#", " ".join(unit.split()))[:UNIT_KEY]
        if len(key) < MIN_CHARS:
            return None
        self.counts[key] = self.counts.get(key, 0) + 1
        return key if self.counts[key] >= self.limit else None
