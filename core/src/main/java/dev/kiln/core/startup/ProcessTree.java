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
     * gone they are re-parented and can no longer be found from it.
     */
    static void end(ProcessHandle root, long graceMillis) throws InterruptedException {
        List<ProcessHandle> all = new ArrayList<>();
        root.descendants().forEach(all::add);
        all.add(0, root);
        for (ProcessHandle p : all) {
            p.destroy();
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(graceMillis);
        for (ProcessHandle p : all) {
            long left = deadline - System.nanoTime();
            if (p.isAlive() && left > 0) {
                try {
                    p.onExit().get(left, TimeUnit.NANOSECONDS);
                } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException ignored) {
                    // Still alive: it gets the forcible signal below.
                }
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
        for (ProcessHandle p : all) {
            if (p.isAlive()) {
                p.destroyForcibly();
            }
        }
    }
}
