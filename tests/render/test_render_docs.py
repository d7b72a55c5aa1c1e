"""The usage example in the package docstring runs as written."""

import textwrap

import newton_gym.render as render


def test_module_docstring_example_runs(tmp_path, monkeypatch):
    doc = render.__doc__
    start = doc.index("Usage::") + len("Usage::")
    end = doc.index("``RayCaster.render_ids``")
    code = textwrap.dedent(doc[start:end]).strip("\n")
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "newton_gym.render docstring", "exec"), {})
    assert (tmp_path / "rollout.gif").stat().st_size > 0
    from PIL import Image
    from pxr import Usd

    with Image.open(tmp_path / "rollout.gif") as im:
        assert im.size == (320, 240)
    stage = Usd.Stage.Open(str(tmp_path / "rollout.usda"))
    assert stage.GetEndTimeCode() == 59
