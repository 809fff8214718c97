"""The README's Python example, run as written (issue 22, acceptance 3): the first ```python block
after the README's "## Python" heading, executed by this interpreter (the .venv's, as the README
says) in the source tree; it must write runs/preload.png."""
import os
import re
import subprocess
import sys
import time
from pathlib import Path

SRC = Path(os.environ.get("BRISTLE_SOURCE", Path(__file__).resolve().parents[2]))


def test_readme_python_example():
    text = (SRC / "README.md").read_text()
    section = text[text.index("\n## Python"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert 5 <= len(code.strip().splitlines()) <= 12
    png = SRC / "runs" / "preload.png"
    start = time.time()
    subprocess.run([sys.executable, "-c", code], cwd=SRC, check=True)
    assert png.exists() and png.stat().st_mtime >= start - 1
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
