"""Which files fix.py's first message shows a model, for each prepared library, with no model:
fix.py runs against the loopback fake Ollama server, whose one scripted turn ends the run, and
the request it received is read.

    python measurements/fix-libraries/first_message.py CODING_LOOP_FOLDER [DEST]

CODING_LOOP_FOLDER is a checkout of coding-loop (this one, or `git archive main | tar -x -C
/tmp/before` for the code before issue 22); DEST is where prepare.py put the libraries
(default /tmp/fix-libraries). It prints one line per library: the files shown in the first
message, in order, and the ones named as not included.

What this file deliberately is not: a measurement of a model. No model is asked; it shows only
what the model would be shown.
"""
import contextlib
import io
import os
import re
import sys
import tempfile


def main():
    root, dest = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "/tmp/fix-libraries"
    sys.path.insert(0, os.path.abspath(root))
    os.chdir(root)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import fix
    from prepare import LIBRARIES
    from testing.fake_ollama import FakeOllama
    from testing.scripted import done, text
    for name, library in LIBRARIES.items():
        with FakeOllama() as server, tempfile.TemporaryDirectory() as out:
            server.play([text("I cannot tell."), done()])
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                fix.main(["--repo", f"{dest}/{name}", "--tests", library.tests, "--host", server.url,
                          "--output", f"{out}/run.json", "--max-turns", "1"])
            first = server.requests[0]["messages"][1]["content"] if server.requests else ""
        shown = re.findall(r"^(\S+)\n`{3,}python\n", first, re.M)
        left = re.search(r"^Not included \(too long for this message\), read it with read_file: (.*)$", first, re.M)
        print(f"{name}: shown {', '.join(shown) or '(no request: fix.py stopped before the model)'}; "
              f"not included: {left.group(1) if left else '-'}")


if __name__ == "__main__":
    main()
