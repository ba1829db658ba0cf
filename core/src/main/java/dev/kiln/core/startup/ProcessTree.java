package dev.kiln.core.startup;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Ends a process and every process below it, politely first (SIGTERM), then forcibly (SIGKILL). */
final class ProcessTree {
    private ProcessTree() {
    }

    /**
     * Ends {@code root} and its descendants. The descendants are listed before the root is signalled: once it is
     * gone they are re-parented and can no longer be found from it. Never throws for an interrupt: a cancelled probe
     * must still end what it started, so an interrupt skips the grace wait and is restored afterwards.
     */
    static void end(ProcessHandle root, long graceMillis) {
        List<ProcessHandle> all = new ArrayList<>();
        root.descendants().forEach(all::add);
        all.add(0, root);
        for (ProcessHandle p : all) {
            p.destroy();
        }
        boolean interrupted = Thread.interrupted();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(graceMillis);
        for (ProcessHandle p : all) {
            long left = deadline - System.nanoTime();
            if (interrupted || !p.isAlive() || left <= 0) {
                continue;
            }
            try {
                p.onExit().get(left, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                interrupted = true;
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException ignored) {
                // Still alive: it gets the forcible signal below.
            }
        }
        // Children a process started while it was being ended are found now, before it is killed.
        List<ProcessHandle> late = new ArrayList<>();
        for (ProcessHandle p : all) {
            if (p.isAlive()) {
                p.descendants().forEach(late::add);
            }
        }
        all.addAll(late);
        List<ProcessHandle> killed = new ArrayList<>();
        for (ProcessHandle p : all) {
            if (p.isAlive() && p.destroyForcibly()) {
                killed.add(p);
            }
        }
        awaitKilled(killed);
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits up to {@code millis} for {@code process} to end; an interrupt ends the wait and is kept. */
    static boolean awaitQuietly(Process process, long millis) {
        try {
            return process.waitFor(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !process.isAlive();
        }
    }

    /** The environment variable each probed server gets, so processes it leaves behind can be found after it exits. */
    static final String TOKEN_VARIABLE = "KILN_PROBE_TOKEN";

    /**
     * The pipes ({@code pipe:[inode]}) that are {@code pid}'s stdin, stdout and stderr, read while it is alive (right
     * after the spawn); empty when it is already gone or there is no {@code /proc}. See {@link #endTagged}.
     */
    static java.util.Set<String> stdioPipes(long pid) {
        java.util.Set<String> pipes = new java.util.HashSet<>();
        for (int fd = 0; fd <= 2; fd++) {
            try {
                String target = java.nio.file.Files.readSymbolicLink(java.nio.file.Path.of("/proc", Long.toString(pid), "fd",
                        Integer.toString(fd))).toString();
                if (target.startsWith("pipe:")) {
                    pipes.add(target);
                }
            } catch (java.io.IOException | UnsupportedOperationException | SecurityException gone) {
                // exited already, or no /proc: the environment tag is all there is
            }
        }
        return pipes;
    }

    /** {@link #endTagged(String, java.util.Set)} by the environment tag alone. */
    static int endTagged(String token) {
        return endTagged(token, java.util.Set.of());
    }

    /**
     * Ends every process, other than this one, that carries {@code token} in its environment or holds one of
     * {@code pipes} (the server's stdio, from {@link #stdioPipes}) open. Children a server left behind were re-parented
     * away from it; {@code setsid} also leaves its process group and session, and {@code env -i} drops the tag, but a
     * process that inherited the server's stdin, stdout or stderr still holds that pipe, and only the probe's own
     * processes can (the JVM's spawn closes every other descriptor). A grandchild that also closes or redirects all
     * three and clears its environment is not found: only a cgroup or a subreaper (neither available to a plain JVM)
     * would catch it. Linux only ({@code /proc}); elsewhere it does nothing.
     */
    static int endTagged(String token, java.util.Set<String> pipes) {
        java.nio.file.Path proc = java.nio.file.Path.of("/proc");
        if (!java.nio.file.Files.isDirectory(proc)) {
            return 0;
        }
        byte[] needle = (TOKEN_VARIABLE + "=" + token).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        long self = ProcessHandle.current().pid();
        List<ProcessHandle> killed = new ArrayList<>();
        try (var entries = java.nio.file.Files.newDirectoryStream(proc)) {
            for (java.nio.file.Path p : entries) {
                String name = p.getFileName().toString();
                if (name.isEmpty() || !name.chars().allMatch(Character::isDigit) || Long.parseLong(name) == self) {
                    continue;
                }
                if (tagged(p, needle) || holdsAny(p, pipes)) {
                    var handle = ProcessHandle.of(Long.parseLong(name));
                    if (handle.isPresent() && handle.get().destroyForcibly()) {
                        killed.add(handle.get());
                    }
                }
            }
        } catch (java.io.IOException e) {
            // what was found so far is still ended below
        }
        awaitKilled(killed);
        return killed.size();
    }

    private static boolean tagged(java.nio.file.Path proc, byte[] needle) {
        try {
            return contains(java.nio.file.Files.readAllBytes(proc.resolve("environ")), needle);
        } catch (java.io.IOException | SecurityException gone) {
            return false; // ended meanwhile, or not ours to read
        }
    }

    private static boolean holdsAny(java.nio.file.Path proc, java.util.Set<String> pipes) {
        if (pipes.isEmpty()) {
            return false;
        }
        try (var fds = java.nio.file.Files.newDirectoryStream(proc.resolve("fd"))) {
            for (java.nio.file.Path fd : fds) {
                try {
                    if (pipes.contains(java.nio.file.Files.readSymbolicLink(fd).toString())) {
                        return true;
                    }
                } catch (java.io.IOException closed) {
                    // closed since listed
                }
            }
        } catch (java.io.IOException | SecurityException gone) {
            // ended meanwhile, or not ours to read
        }
        return false;
    }

    /**
     * SIGKILL is not instant: waits (briefly, even when interrupted) until {@code killed} are really gone, so that
     * "ended" means ended when the caller looks at the process table.
     */
    private static void awaitKilled(List<ProcessHandle> killed) {
        boolean interrupted = false;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        for (ProcessHandle p : killed) {
            while (p.isAlive() && System.nanoTime() < deadline) {
                try {
                    p.onExit().get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException ignored) {
                    break;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static boolean contains(byte[] env, byte[] needle) {
        // environ is NUL-separated NAME=value entries; match a whole entry.
        int start = 0;
        for (int i = 0; i <= env.length; i++) {
            if (i == env.length || env[i] == 0) {
                if (i - start == needle.length && java.util.Arrays.equals(env, start, i, needle, 0, needle.length)) {
                    return true;
                }
                start = i + 1;
            }
        }
        return false;
    }
}
