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
     * Ends every process still carrying {@code token} in its environment: children a server left behind when it
     * exited were re-parented away from it, and only this tag still ties them to the probe. Linux only ({@code /proc});
     * elsewhere it does nothing.
     */
    static int endTagged(String token) {
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
                if (name.isEmpty() || !Character.isDigit(name.charAt(0)) || Long.parseLong(name) == self) {
                    continue;
                }
                byte[] env;
                try {
                    env = java.nio.file.Files.readAllBytes(p.resolve("environ"));
                } catch (java.io.IOException | SecurityException gone) {
                    continue; // ended meanwhile, or not ours to read
                }
                if (contains(env, needle)) {
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
