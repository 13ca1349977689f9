"""The tail of what is written to file descriptor 2 (install(capture_stderr=True)).

Runtimes print allocation dumps and compile reports to stderr, from C++, just
before they raise: those lines explain the OOM. StderrTail puts a pipe in place of
fd 2, passes every byte on to the real stderr at once, and keeps the last `limit`
bytes (bounded). close() (also at exit) puts fd 2 back after the pipe is drained.
Processes started meanwhile inherit the pipe. When one of them still holds it at
close() (a server, a data loader, a TensorBoard that outlives the job), the pipe is
handed to a `cat` that passes the rest on to the real stderr until the last of them
closes it: they are never killed by SIGPIPE, and the interpreter exits at once
(attack review D2).
"""
from __future__ import annotations

import atexit
import collections
import fcntl
import os
import select
import subprocess
import sys
import termios
import threading
import time
import struct


class StderrTail:
    def __init__(self, limit: int):
        self._limit = limit
        self._chunks: "collections.deque[bytes]" = collections.deque()
        self._size = 0
        self._lock = threading.Lock()
        sys.stderr.flush()
        self._saved = os.dup(2)
        self._read, write = os.pipe()
        os.dup2(write, 2)
        os.close(write)
        self._stop_read, self._stop_write = os.pipe()  # close() wakes the pump with a byte
        self._at_end = False  # the pump read the pipe's end: no process holds it
        self._drainer: "subprocess.Popen[bytes] | None" = None
        self._thread = threading.Thread(target=self._pump, name="oomlens-stderr-tail", daemon=True)
        self._thread.start()
        self._closed = False
        atexit.register(self.close)

    def _pump(self) -> None:
        while True:
            ready, _, _ = select.select([self._read, self._stop_read], [], [])
            if self._stop_read in ready:
                return  # told to stop: what is left in the pipe is for the drainer
            data = os.read(self._read, 1 << 16)
            if not data:
                self._at_end = True
                return
            view = memoryview(data)
            while view:
                view = view[os.write(self._saved, view):]
            with self._lock:
                self._chunks.append(data)
                self._size += len(data)
                while self._size - len(self._chunks[0]) >= self._limit:
                    self._size -= len(self._chunks.popleft())

    def _drain(self, timeout: float = 1.0) -> None:
        """Waits until what was written so far has been read from the pipe."""
        sys.stderr.flush()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pending = struct.unpack("i", fcntl.ioctl(self._read, termios.FIONREAD, b"\0\0\0\0"))[0]
            if pending == 0:
                time.sleep(0.01)  # the pump may still be copying the last read
                return
            time.sleep(0.005)

    def text(self) -> str:
        """The bytes kept (at most limit, from a line start), as text."""
        if not self._closed:
            self._drain()
        with self._lock:
            data = b"".join(self._chunks)[-self._limit:]
        if len(data) == self._limit and b"\n" in data:
            data = data[data.index(b"\n") + 1:]  # not half a line
        return data.decode("utf-8", errors="replace")

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        sys.stderr.flush()
        os.dup2(self._saved, 2)  # the pipe's last writer here goes: the pump reads to its end
        self._thread.join(timeout=0.2)
        if not self._at_end:  # a process started meanwhile still holds the pipe
            os.write(self._stop_write, b"x")
            self._thread.join()
            self._hand_on()
        for fd in (self._read, self._saved, self._stop_read, self._stop_write):
            os.close(fd)
        atexit.unregister(self.close)

    def _hand_on(self) -> None:
        """Gives the pipe's read end to a process that copies it to the real stderr."""
        try:
            self._drainer = subprocess.Popen(["cat"], stdin=self._read, stdout=self._saved,
                                             start_new_session=True)  # a Ctrl-C of the job spares it
        except OSError:
            pass  # no cat: the processes holding the pipe lose their stderr, as before
