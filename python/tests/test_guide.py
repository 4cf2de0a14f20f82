"""The guide's Python examples (the ```pycon blocks of docs/guide/api.md), run in an
empty directory and compared with the output they show."""

import doctest
import re
from pathlib import Path

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guide" / "api.md"


def test_the_guides_python_examples_print_what_they_show(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    blocks = re.findall(r"```pycon\n(.*?)```", GUIDE.read_text(), re.S)
    assert blocks, "no ```pycon block in the guide"
    runner = doctest.DocTestRunner()
    parser = doctest.DocTestParser()
    for n, block in enumerate(blocks, 1):
        runner.run(parser.get_doctest(block, {}, f"{GUIDE.name}, block {n}", str(GUIDE), 0))
    result = runner.summarize(verbose=False)
    assert result.attempted > 5 and result.failed == 0
