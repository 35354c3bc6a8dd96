"""One story of `tf.io.gfile` / `tf.gfile` calls, run unchanged under real TensorFlow and under webflow
(tests/io/test_gfile.py): each step's value, or its error's class name and message (the folder's name replaced
by "ROOT"), so the two runs can be compared line by line. Imports nothing: the engine's gfile modules come in."""

import os


def run(g, v1, root):  # g: tf.io.gfile, v1: tf.compat.v1.gfile
    steps = []

    def step(label, action):
        try:
            value = action()
        except Exception as error:  # noqa: BLE001 - the class and message are what is compared
            steps.append([label, type(error).__name__, str(error).replace(root, "ROOT")])
            return
        steps.append([label, "ok", _plain(value, root)])

    p = os.path.join(root, "a.txt")
    with g.GFile(p, "w") as f:
        f.write("hello\r\nworld\nlast")
    step("missing read", lambda: g.GFile(os.path.join(root, "nope.txt")).read())
    step("missing constructor", lambda: g.GFile(os.path.join(root, "nope.txt")).name.endswith("nope.txt"))
    step("bad mode", lambda: g.GFile(p, "x"))
    step("read text", lambda: g.GFile(p).read())
    step("read binary", lambda: g.GFile(p, "rb").read())
    step("read 3", lambda: g.GFile(p).read(3))
    step("read 0", lambda: g.GFile(p).read(0))
    step("readline", lambda: _lines(g.GFile(p), 4))
    step("readline binary", lambda: _lines(g.GFile(p, "rb"), 4))
    step("readlines", lambda: g.GFile(p).readlines())
    step("iterate", lambda: list(g.GFile(p, "rb")))
    step("read after end", lambda: _calls(g.GFile(p), lambda f: f.read(), lambda f: f.read(), lambda f: f.read(5)))
    step("read -1", lambda: _calls(g.GFile(p), lambda f: f.read(2), lambda f: f.read(-1)))
    step("size", lambda: g.GFile(p).size())
    step("seek tell", lambda: _calls(g.GFile(p), lambda f: f.seek(2), lambda f: f.tell(), lambda f: f.read(2),
                                     lambda f: f.tell()))
    step("seek from end", lambda: _calls(g.GFile(p), lambda f: f.seek(-2, 2), lambda f: f.read()))
    step("seek from here", lambda: _calls(g.GFile(p), lambda f: f.read(2), lambda f: f.seek(2, 1),
                                          lambda f: f.read()))
    step("seek offset=", lambda: _calls(g.GFile(p), lambda f: f.seek(offset=3), lambda f: f.read()))
    step("seek past end", lambda: g.GFile(p).seek(100))
    step("seek negative", lambda: g.GFile(p).seek(-1))
    step("seek bad whence", lambda: g.GFile(p).seek(2, 5))
    step("seekable", lambda: g.GFile(p).seekable())
    step("name mode", lambda: [os.path.basename(g.GFile(p).name), g.GFile(p, "rb").mode])
    step("read a folder", lambda: g.GFile(root).read())
    step("write read-only", lambda: g.GFile(p).write("x"))
    step("read write-only", lambda: g.GFile(p, "w").read())
    step("seek write-only", lambda: g.GFile(os.path.join(root, "w.txt"), "w").seek(0))
    step("write int", lambda: g.GFile(os.path.join(root, "i.txt"), "w").write(5))
    step("close then read", lambda: _calls(g.GFile(p), lambda f: f.read(2), lambda f: f.close(),
                                           lambda f: f.read()))
    b = os.path.join(root, "b.bin")
    step("bytes in w, str in wb", lambda: _calls(g.GFile(b, "w"), lambda f: f.write(b"ab"), lambda f: f.write("c"),
                                                 lambda f: f.tell(), lambda f: f.size(), lambda f: f.close(),
                                                 lambda f: g.GFile(b, "rb").read()))
    step("w opened, nothing written", lambda: _calls(g.GFile(os.path.join(root, "e.txt"), "w"), lambda f: f.close(),
                                                     lambda f: g.exists(os.path.join(root, "e.txt"))))
    step("flush", lambda: _calls(g.GFile(os.path.join(root, "f.txt"), "w"), lambda f: f.write("abcd"),
                                 lambda f: f.flush(), lambda f: f.size(),
                                 lambda f: g.GFile(os.path.join(root, "f.txt")).read()))
    step("append", lambda: _calls(g.GFile(b, "a"), lambda f: f.write("d"), lambda f: f.close(),
                                  lambda f: g.GFile(b).read()))
    step("a+ reads", lambda: g.GFile(b, "a+").read())
    step("w+", lambda: _calls(g.GFile(os.path.join(root, "wp.txt"), "w+"), lambda f: f.write("abc"),
                              lambda f: f.flush(), lambda f: f.read()))
    step("write after close", lambda: _calls(g.GFile(os.path.join(root, "wc.txt"), "w"), lambda f: f.write("x"),
                                             lambda f: f.close(), lambda f: f.write("y"), lambda f: f.close(),
                                             lambda f: g.GFile(os.path.join(root, "wc.txt")).read()))
    step("utf-8 text", lambda: _calls(g.GFile(os.path.join(root, "u.txt"), "w"), lambda f: f.write("é\n"),
                                      lambda f: f.close(), lambda f: g.GFile(os.path.join(root, "u.txt")).read(),
                                      lambda f: g.GFile(os.path.join(root, "u.txt"), "rb").read(1)))
    step("exists", lambda: [g.exists(p), g.exists(p + "zz"), g.exists(root)])
    step("stat", lambda: _stat(g.stat(p)))
    step("stat folder", lambda: g.stat(root).is_directory)
    step("stat mtime", lambda: g.stat(p).mtime_nsec == int(os.stat(p).st_mtime) * 10**9)
    step("stat missing", lambda: g.stat(p + "zz"))
    step("listdir missing", lambda: g.listdir(p + "zz"))
    step("listdir of a file", lambda: g.listdir(p))
    step("mkdir existing", lambda: g.mkdir(root))
    step("mkdir over a file", lambda: g.mkdir(p))
    step("mkdir nested", lambda: g.mkdir(os.path.join(root, "x", "y")))
    step("mkdir under a file", lambda: g.mkdir(os.path.join(p, "q")))
    step("makedirs", lambda: g.makedirs(os.path.join(root, "x", "y")))
    step("makedirs again", lambda: g.makedirs(os.path.join(root, "x", "y")))
    step("makedirs over a file", lambda: g.makedirs(p))
    step("makedirs under a file", lambda: g.makedirs(os.path.join(p, "q", "r")))
    step("listdir", lambda: sorted(g.listdir(root)))
    step("listdir bytes", lambda: sorted(g.listdir(root.encode())))
    step("isdir", lambda: [g.isdir(root), g.isdir(p), g.isdir(p + "zz")])
    step("remove missing", lambda: g.remove(p + "zz"))
    step("remove a folder", lambda: g.remove(os.path.join(root, "x")))
    step("rename onto a file", lambda: g.rename(b, p))
    step("rename missing", lambda: g.rename(p + "zz", p + "q"))
    step("rename overwrite", lambda: [g.rename(os.path.join(root, "f.txt"), b, overwrite=True), g.GFile(b).read()])
    step("rename onto a folder", lambda: g.rename(b, os.path.join(root, "x"), overwrite=True))
    step("copy no overwrite", lambda: g.copy(p, b))
    step("copy missing", lambda: g.copy(p + "zz", p + "4"))
    step("copy overwrite", lambda: [g.copy(p, b, overwrite=True), g.GFile(b).read()])
    step("copy onto a folder", lambda: g.copy(p, os.path.join(root, "x"), overwrite=True))
    step("copy a folder", lambda: g.copy(os.path.join(root, "x"), os.path.join(root, "c.txt")))
    step("glob", lambda: sorted(os.path.basename(x) for x in g.glob(os.path.join(root, "*.txt"))))
    step("glob ? []", lambda: [sorted(os.path.basename(x) for x in g.glob(os.path.join(root, "?.t[x]t")))])
    step("glob list", lambda: [os.path.basename(x) for x in g.glob([p, os.path.join(root, "b.*")])])
    step("glob folders", lambda: sorted(os.path.relpath(x, root) for x in g.glob(os.path.join(root, "*", "*"))))
    step("glob nothing", lambda: [g.glob(os.path.join(root, "none", "*")), g.glob(os.path.join(root, "none"))])
    step("glob exact", lambda: [os.path.basename(x) for x in g.glob(p)])
    step("walk", lambda: [[os.path.relpath(a, root), sorted(d), sorted(f)] for a, d, f in g.walk(root)])
    step("walk bottom-up", lambda: [os.path.relpath(a, root) for a, _, _ in g.walk(root, topdown=False)])
    step("walk missing", lambda: list(g.walk(os.path.join(root, "zz"))))
    step("walk a file", lambda: list(g.walk(p)))
    step("rmtree missing", lambda: g.rmtree(os.path.join(root, "zz")))
    step("rmtree", lambda: [g.rmtree(os.path.join(root, "x")), g.exists(os.path.join(root, "x"))])
    step("rmtree a file", lambda: [g.rmtree(os.path.join(root, "wc.txt")), g.exists(os.path.join(root, "wc.txt"))])
    step("remove", lambda: [g.remove(b), g.exists(b)])
    step("join", lambda: g.join("a", "b", "c.png"))
    step("v1 names", lambda: sorted(n for n in dir(v1) if n[0].isupper()))
    step("v1 Open", lambda: v1.Open(p).read())
    step("v1 FastGFile", lambda: v1.FastGFile(p, "rb").read())
    step("v1 GFile", lambda: v1.GFile(p).readline())
    step("v1 Exists IsDirectory", lambda: [v1.Exists(p), v1.IsDirectory(root)])
    step("v1 MakeDirs MkDir", lambda: [v1.MakeDirs(os.path.join(root, "m", "n")), v1.MkDir(os.path.join(root, "o")),
                                       sorted(v1.ListDirectory(root))])
    step("v1 ListDirectory missing", lambda: v1.ListDirectory(os.path.join(root, "qq")))
    step("v1 Rename Copy", lambda: [v1.Copy(p, os.path.join(root, "c1")), v1.Rename(os.path.join(root, "c1"),
                                    os.path.join(root, "c2")), v1.Copy(p, os.path.join(root, "c2"), True)])
    step("v1 Rename exists", lambda: v1.Rename(p, os.path.join(root, "c2")))
    step("v1 Glob Stat", lambda: [len(v1.Glob(os.path.join(root, "c*"))), v1.Stat(p).length])
    step("v1 Walk", lambda: [os.path.relpath(a, root) for a, _, _ in v1.Walk(os.path.join(root, "m"), False)])
    step("v1 Remove DeleteRecursively", lambda: [v1.Remove(os.path.join(root, "c2")),
                                                 v1.DeleteRecursively(os.path.join(root, "m"))])
    step("v1 DeleteRecursively missing", lambda: v1.DeleteRecursively(os.path.join(root, "m")))
    return steps


def _lines(f, count):
    return [f.readline() for _ in range(count)]


def _calls(f, *actions):
    return [action(f) for action in actions]


def _stat(info):
    return [info.length, info.is_directory, type(info.mtime_nsec).__name__, type(info).__name__]


def _plain(value, root):
    if isinstance(value, (list, tuple)):
        return [_plain(v, root) for v in value]
    if isinstance(value, bytes):
        return ["bytes", value.decode("latin-1")]
    if isinstance(value, str):
        return value.replace(root, "ROOT")
    return value
