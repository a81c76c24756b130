"""Writing outputs (planner.core.files): each file staged beside its target and renamed into place, so none
is ever half-written."""

import os
import stat

import pytest

from planner.core.errors import InputError
from planner.core.files import Outputs, discard, file_stem, stage, write_all


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


def test_write_all_replaces_the_whole_file(tmp_path):
    path = tmp_path / "out.txt"
    write_all({path: "old"})
    write_all({path: b"new bytes"})
    assert path.read_bytes() == b"new bytes"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_write_all_says_which_file_cannot_be_written(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(InputError) as err:
        write_all({tmp_path / "ok.txt": "fine", blocker / "sub" / "x.txt": "never"})
    assert str(err.value).startswith(str(blocker / "sub" / "x.txt") + ": out: cannot be written")  # the library's name
    assert err.value.lines(as_flags=True)[0].startswith(str(blocker / "sub" / "x.txt") + ": --out: cannot")  # the CLI's
    assert not (tmp_path / "ok.txt").exists()  # a set of outputs is written whole or not at all (issue 25)


# ----------------------------------------------------------------------------- one set, whole or nothing (issue 25)


def test_a_name_too_long_for_the_file_system_leaves_the_former_files_as_they_were(tmp_path):
    """A workloads file naming a distribution file that was never written: the rename of the second
    output failed after the first was in place. Now every output is staged before any is renamed."""
    (tmp_path / "w.yaml").write_text("former")
    with pytest.raises(InputError) as err:
        write_all({tmp_path / "w.yaml": "new", tmp_path / ("d" * 300 + ".csv"): "rows"})
    assert "cannot be written" in str(err.value) and "too long" in str(err.value)
    assert [p.name for p in tmp_path.iterdir()] == ["w.yaml"] and (tmp_path / "w.yaml").read_text() == "former"


def test_a_failed_rename_puts_every_former_output_back(tmp_path, monkeypatch):
    for name in ("a", "b", "c"):
        (tmp_path / name).write_text(f"former {name}")
    real, calls = os.replace, []

    def failing(src, dst):
        calls.append(dst)
        if str(dst) == str(tmp_path / "c") and calls.count(dst) == 1:  # the new c's rename
            raise OSError(28, "No space left on device")
        return real(src, dst)

    monkeypatch.setattr(os, "replace", failing)
    with pytest.raises(InputError) as err:
        write_all({tmp_path / n: f"new {n}" for n in ("a", "b", "c")})
    monkeypatch.setattr(os, "replace", real)
    assert str(err.value).startswith(str(tmp_path / "c")) and "No space left" in str(err.value)
    assert {p.name: p.read_text() for p in tmp_path.iterdir()} == {n: f"former {n}" for n in ("a", "b", "c")}


def test_outputs_made_folders_are_removed_when_the_set_fails(tmp_path):
    out = tmp_path / "new" / "deeper"
    with pytest.raises(KeyboardInterrupt), Outputs() as outputs:
        outputs.folder(out)
        outputs.add(out / "plan.json", "x")
        raise KeyboardInterrupt
    assert list(tmp_path.iterdir()) == []


def test_a_folder_is_replaced_whole(tmp_path):
    out = tmp_path / "fetched"
    out.mkdir()
    (out / "old.json").write_text("old")
    staged = tmp_path / ".fetched.new"
    staged.mkdir()
    (staged / "new.json").write_text("new")
    with Outputs() as outputs:
        outputs.adopt(out, staged)
        outputs.commit()
    assert [p.name for p in out.iterdir()] == ["new.json"] and [p.name for p in tmp_path.iterdir()] == ["fetched"]


def test_a_name_too_long_is_refused_before_any_work(tmp_path):
    with pytest.raises(InputError) as err:
        file_stem("w" * 201, "plan.json", "name")
    assert "too long to name an output file" in str(err.value) and str(err.value).startswith("plan.json: name:")


def test_from_logs_writes_its_workloads_file_and_distribution_files_whole_or_not_at_all(tmp_path):
    """The workloads file names its distribution files: when one cannot be written (its name, the
    workloads file's stem and a workload id, is longer than the file system holds), none is."""
    from conftest import DATA
    from typer.testing import CliRunner

    from planner.cli.app import app

    source = DATA / "logs" / "litellm_spend_logs.csv"
    out = tmp_path / ("w" * 230 + ".yaml")
    result = CliRunner().invoke(
        app, ["workloads", "from-logs", str(source), "--format", "litellm", "--name", "w", "--out", str(out)]
    )
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2 and len(lines) == 1 and "cannot be written: File name too long" in lines[0], lines
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("after", [1, 2, 3, 4])
def test_a_signal_between_any_two_renames_puts_every_former_output_back(tmp_path, monkeypatch, after):
    """Found in review: a KeyboardInterrupt right after a rename left a former output hidden, or a new
    folder in place. Now the rollback asks the file system what is where."""
    (tmp_path / "plan.json").write_text("former plan")
    (tmp_path / "fetched").mkdir()
    (tmp_path / "fetched" / "a.json").write_text("former a")
    staged = tmp_path / ".fetched.new"
    staged.mkdir()
    (staged / "b.json").write_text("new b")
    real, calls = os.replace, []

    def interrupted(src, dst):
        real(src, dst)
        calls.append(dst)
        if len(calls) == after:
            raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt), Outputs() as outputs:
        outputs.add(tmp_path / "plan.json", "new plan")
        outputs.add(tmp_path / "report.html", "new report")
        outputs.adopt(tmp_path / "fetched", staged)
        outputs.commit()
    monkeypatch.setattr(os, "replace", real)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fetched", "plan.json"]
    assert (tmp_path / "plan.json").read_text() == "former plan"
    assert [p.name for p in (tmp_path / "fetched").iterdir()] == ["a.json"]


def test_a_folder_the_user_had_is_never_removed(tmp_path):
    """Found in review: out = new/../existing counted `existing` as made by the run."""
    (tmp_path / "existing").mkdir()
    with pytest.raises(KeyboardInterrupt), Outputs() as outputs:
        outputs.folder(tmp_path / "new" / ".." / "existing")
        raise KeyboardInterrupt
    assert sorted(p.name for p in tmp_path.iterdir()) == ["existing"]


def test_the_cache_folder_is_the_users_own_or_none(tmp_path, monkeypatch):
    from planner.core.files import cache_dir

    monkeypatch.setenv("PLANNER_CACHE_DIR", str(tmp_path / "c"))
    folder = cache_dir("templates")
    assert folder == tmp_path / "c" / "templates" and stat.S_IMODE(folder.stat().st_mode) == 0o700
    folder.chmod(0o777)  # a folder others may write into: what is read back from it would be theirs
    assert cache_dir("templates") is None
    monkeypatch.setenv("PLANNER_CACHE_DIR", "off")
    assert cache_dir("templates") is None
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("PLANNER_CACHE_DIR", str(tmp_path / "file"))  # cannot be made: no cache, no error
    assert cache_dir("templates") is None
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)  # (not sticky) anyone may rename the folders in it: a cache below it is not kept
    monkeypatch.setenv("PLANNER_CACHE_DIR", str(shared / "mine"))
    assert cache_dir("templates") is None
    monkeypatch.delenv("PLANNER_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir("t") == tmp_path / "xdg" / "planner" / "t"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setattr("pathlib.Path.home", lambda: (_ for _ in ()).throw(RuntimeError("no home directory")))
    assert cache_dir("t") is None  # (a uid with no home: no cache, and no error)
