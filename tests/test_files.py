"""Writing outputs (planner.files): each file staged beside its target and renamed into place, so none
is ever half-written."""

import os
import stat

import pytest

from planner.errors import InputError
from planner.files import discard, file_stem, stage, write_all, write_atomic


def test_file_stem_makes_a_name_one_path_component():
    assert file_stem("cheap/gpu:eu") == "cheap_gpu_eu" and file_stem("plain-name.v2") == "plain-name.v2"


def test_a_staged_file_is_hidden_beside_its_target_until_renamed(tmp_path):
    target = tmp_path / "sub" / "plan.json"
    tmp = stage(target, "text", "tag.")
    assert os.path.dirname(tmp) == str(target.parent) and os.path.basename(tmp).startswith(".plan.json.tag.")
    assert not target.exists() and open(tmp, encoding="utf-8").read() == "text"
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(os.stat(tmp).st_mode) == 0o666 & ~umask  # a new file's permissions, not mkstemp's 0600
    discard(tmp)
    discard(tmp)  # gone already: nothing to do
    assert list(target.parent.iterdir()) == []


def test_write_atomic_replaces_the_whole_file(tmp_path):
    path = tmp_path / "out.txt"
    write_atomic(path, "old")
    write_atomic(path, b"new bytes")
    assert path.read_bytes() == b"new bytes"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_write_all_says_which_file_cannot_be_written(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(InputError) as err:
        write_all({tmp_path / "ok.txt": "fine", blocker / "sub" / "x.txt": "never"})
    assert str(err.value).startswith(str(blocker / "sub" / "x.txt") + ": --out: cannot be written")
    assert (tmp_path / "ok.txt").read_text() == "fine"
