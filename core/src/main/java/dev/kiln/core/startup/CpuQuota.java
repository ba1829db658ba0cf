package dev.kiln.core.startup;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A fractional CPU share for every server of a probe run, the way a container's {@code cpus: 0.5} limits all the
 * processes it holds together: one CPU-quota group that every server (and every child it starts) joins before its
 * program runs.
 *
 * <p>The group is cgroup v2 {@code cpu.max} when the unified hierarchy has the cpu controller and Kiln may create a
 * group in it, else cgroup v1 {@code cpu.cfs_quota_us} (with {@code cpuacct} beside it for the CPU time used), else a
 * delegated {@code systemd-run --user --scope -p CPUQuota=…} scope for a user session. Groups are named
 * {@code kiln-probe-<kiln pid>-<n>}: {@link #close} removes the group (ending anything still in it), a JVM shutdown hook
 * does the same when Kiln is stopped, and {@link #open} first removes groups whose Kiln process is dead (Kiln was
 * killed with SIGKILL).
 *
 * <p>The group also gets a high CPU weight: up to its quota its servers are not starved by the machine's other work,
 * so what is measured is the quota, not the neighbours.
 *
 * <p>Concurrency: {@link #wrap} and {@link #cpuUsageNanos} may be called from any thread; {@link #close} is idempotent
 * and may race with the shutdown hook.
 */
public final class CpuQuota implements AutoCloseable {
    /** The CFS period Kiln asks for, in microseconds (the kernel's default). */
    static final long PERIOD_US = 100_000;
    /** The smallest quota the kernel accepts, in microseconds. */
    static final long MIN_QUOTA_US = 1_000;
    /** The smallest share Kiln accepts: {@link #MIN_QUOTA_US} per {@link #PERIOD_US}. */
    public static final double MIN_SHARE = (double) MIN_QUOTA_US / PERIOD_US;
    static final String PREFIX = "kiln-probe-";
    private static final Pattern NAME = Pattern.compile("kiln-probe-(\\d+)-\\d+(\\.scope)?");
    private static final AtomicInteger SEQUENCE = new AtomicInteger();
    private static final long SELF = ProcessHandle.current().pid();

    /** How a share is enforced. */
    public enum Mechanism {
        /** cgroup v2: {@code cpu.max} on a group Kiln created. */
        CGROUP_V2,
        /** cgroup v1: {@code cpu.cfs_period_us} and {@code cpu.cfs_quota_us} on a group Kiln created. */
        CGROUP_V1,
        /** A {@code systemd-run --user --scope -p CPUQuota=…} scope with delegation, for a user session. */
        SYSTEMD_RUN,
        /** No mechanism is available: the share cannot be enforced. */
        NONE;

        /** The name used in JSON and reports: {@code cgroup-v2}, {@code cgroup-v1}, {@code systemd-run}, {@code none}. */
        public String label() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    /** Thrown when a share cannot be set up; the message says what and what to do. */
    public static final class QuotaException extends IllegalStateException {
        private static final long serialVersionUID = 1L;
        private final Mechanism tried;

        QuotaException(Mechanism tried, String message) {
            super(message);
            this.tried = tried;
        }

        /** The mechanism that was tried last ({@link Mechanism#NONE} when none was available at all). */
        public Mechanism tried() {
            return tried;
        }
    }

    private final double share;
    private final Mechanism mechanism;
    private final String name;
    /** Directories whose {@code cgroup.procs} a server joins (v1: cpu and cpuacct; v2 and systemd: one). */
    private final List<Path> joinDirs;
    /** Directories Kiln created and removes, deepest last. */
    private final List<Path> ownedDirs;
    /** Where the CPU time used is read: a v1 cpuacct dir or a v2 dir. */
    private final @Nullable Path usageDir;
    private final boolean usageV2;
    /** The systemd scope's holder process, or null. */
    private final @Nullable Process holder;
    private final Thread shutdownHook;
    private volatile boolean closed;

    private CpuQuota(double share, Mechanism mechanism, String name, List<Path> joinDirs, List<Path> ownedDirs,
            @Nullable Path usageDir, boolean usageV2, @Nullable Process holder) {
        this.share = share;
        this.mechanism = mechanism;
        this.name = name;
        this.joinDirs = List.copyOf(joinDirs);
        this.ownedDirs = List.copyOf(ownedDirs);
        this.usageDir = usageDir;
        this.usageV2 = usageV2;
        this.holder = holder;
        this.shutdownHook = new Thread(this::close, "kiln-cpu-quota-cleanup");
        try {
            Runtime.getRuntime().addShutdownHook(shutdownHook);
        } catch (IllegalStateException shuttingDown) {
            // Kiln is being stopped: a group made now would outlive it; undo it and say why.
            closed = true;
            if (holder != null) {
                holder.destroyForcibly();
            }
            for (int i = ownedDirs.size() - 1; i >= 0; i--) {
                removeDir(ownedDirs.get(i));
            }
            throw new QuotaException(mechanism, "Kiln is shutting down: no new CPU-quota group is made");
        }
    }

    /**
     * Checks a share before anything is created.
     *
     * @throws IllegalArgumentException when it is not positive or below what the kernel accepts
     */
    public static double checkShare(double share) {
        if (!(share > 0) || Double.isInfinite(share)) {
            throw new IllegalArgumentException("--cpu-share takes a positive number of CPUs like 0.5 or 2, got " + share);
        }
        long quota = Math.round(share * PERIOD_US);
        if (quota < MIN_QUOTA_US) {
            throw new IllegalArgumentException(String.format(Locale.ROOT, "--cpu-share %s is below what the kernel accepts:"
                    + " the smallest CFS quota is %d µs per %d µs period, a share of %.2f CPU; give at least %.2f",
                    format(share), MIN_QUOTA_US, PERIOD_US, MIN_SHARE, MIN_SHARE));
        }
        return share;
    }

    /**
     * Creates the group for {@code share} CPUs with the first mechanism available here, after removing groups left by
     * a Kiln that was killed.
     *
     * @param environment the environment to find {@code systemd-run} in (PATH, XDG_RUNTIME_DIR)
     * @throws IllegalArgumentException for a share the kernel does not accept
     * @throws QuotaException when no mechanism is available or Kiln lacks the rights; the message suggests {@code --cpus}
     */
    public static CpuQuota open(double share, Map<String, String> environment) {
        checkShare(share);
        removeLeftovers();
        String name = PREFIX + SELF + "-" + SEQUENCE.incrementAndGet();
        List<String> tried = new ArrayList<>();
        Path v2 = cgroupV2Root();
        if (v2 != null) {
            if (controllers(v2).contains("cpu")) {
                try {
                    return openV2(share, name, v2);
                } catch (IOException e) {
                    tried.add("cgroup v2 at " + v2 + ": " + rights(e));
                }
            } else {
                tried.add("cgroup v2 at " + v2 + ": the cpu controller is not enabled there");
            }
        }
        Path cpu = cgroupV1Mount("cpu");
        if (cpu != null) {
            try {
                return openV1(share, name, cpu, cgroupV1Mount("cpuacct"));
            } catch (IOException e) {
                tried.add("cgroup v1 at " + cpu + ": " + rights(e));
            }
        }
        if (v2 == null && cpu == null) {
            tried.add("no cgroup file system is mounted");
        }
        if (onPath(environment, "systemd-run")) {
            try {
                return openSystemd(share, name, environment);
            } catch (IOException e) {
                tried.add("systemd-run --user --scope: " + e.getMessage());
            }
        } else {
            tried.add("systemd-run is not on PATH");
        }
        throw new QuotaException(Mechanism.NONE, "--cpu-share " + format(share) + " cannot be enforced here: "
                + String.join("; ", tried) + ". Run Kiln as root (cgroups), in a systemd user session (systemd-run --user),"
                + " or pin the servers to whole CPUs with --cpus 0 (taskset) instead.");
    }

    private static String rights(IOException e) {
        String m = e.getMessage() == null ? e.toString() : e.getMessage();
        if (e instanceof java.nio.file.AccessDeniedException || m.contains("Permission denied")
                || m.contains("Read-only file system")) {
            return "no rights to create a group (" + m + ")";
        }
        return m;
    }

    private static CpuQuota openV2(double share, String name, Path root) throws IOException {
        Path dir = root.resolve(name);
        if (!Files.readString(root.resolve("cgroup.subtree_control")).contains("cpu")) {
            Files.writeString(root.resolve("cgroup.subtree_control"), "+cpu"); // IOException if not allowed
        }
        Files.createDirectory(dir);
        try {
            Files.writeString(dir.resolve("cpu.max"), Math.round(share * PERIOD_US) + " " + PERIOD_US);
            writeQuietly(dir.resolve("cpu.weight"), "1000");
        } catch (IOException e) {
            removeDir(dir);
            throw e;
        }
        return new CpuQuota(share, Mechanism.CGROUP_V2, name, List.of(dir), List.of(dir), dir, true, null);
    }

    private static CpuQuota openV1(double share, String name, Path cpuMount, @Nullable Path acctMount) throws IOException {
        Path cpu = cpuMount.resolve(name);
        Files.createDirectory(cpu);
        List<Path> join = new ArrayList<>(List.of(cpu));
        try {
            Files.writeString(cpu.resolve("cpu.cfs_period_us"), Long.toString(PERIOD_US));
            Files.writeString(cpu.resolve("cpu.cfs_quota_us"), Long.toString(Math.round(share * PERIOD_US)));
            writeQuietly(cpu.resolve("cpu.shares"), "10240");
        } catch (IOException e) {
            removeDir(cpu);
            throw e;
        }
        Path usage = Files.exists(cpu.resolve("cpuacct.usage")) ? cpu : null; // cpu,cpuacct mounted together
        if (usage == null && acctMount != null && !acctMount.equals(cpuMount)) {
            Path acct = acctMount.resolve(name);
            try {
                Files.createDirectory(acct);
                join.add(acct);
                usage = acct;
            } catch (IOException e) {
                // The quota still holds; only the CPU-time check is lost.
            }
        }
        return new CpuQuota(share, Mechanism.CGROUP_V1, name, join, join, usage, false, null);
    }

    /**
     * A delegated scope whose holder is a {@code sleep}: the scope's cgroup (its {@code cpu.max} set by systemd from
     * CPUQuota) is the user's to move processes into, so servers join it as they would a cgroup v2 group.
     */
    private static CpuQuota openSystemd(double share, String name, Map<String, String> env) throws IOException {
        String percent = Math.round(share * 100) + "%";
        ProcessBuilder pb = new ProcessBuilder("systemd-run", "--user", "--scope", "--quiet", "--unit=" + name,
                "-p", "Delegate=yes", "-p", "CPUQuota=" + percent, "--", "sleep", "infinity");
        pb.environment().putAll(env);
        pb.redirectErrorStream(true);
        Process p = pb.start();
        p.getOutputStream().close();
        Path v2 = cgroupV2Mount();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (System.nanoTime() < deadline) {
                if (!p.isAlive()) {
                    String out = new String(p.getInputStream().readNBytes(4096), StandardCharsets.UTF_8).strip();
                    throw new IOException("it exited (" + p.exitValue() + ")" + (out.isEmpty() ? "" : ": " + out));
                }
                String path = ownCgroupV2(Path.of("/proc", Long.toString(p.pid()), "cgroup"));
                if (v2 != null && path != null && path.endsWith("/" + name + ".scope")) {
                    Path dir = v2.resolve(path.substring(1));
                    if (!Files.isWritable(dir.resolve("cgroup.procs"))) {
                        throw new IOException("the scope " + dir + " is not delegated to this user");
                    }
                    return new CpuQuota(share, Mechanism.SYSTEMD_RUN, name, List.of(dir), List.of(), dir, true, p);
                }
                Thread.sleep(20);
            }
            throw new IOException("its scope did not appear within 5 s");
        } catch (IOException e) {
            p.destroyForcibly();
            throw e;
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for the scope");
        }
    }

    /** The share in CPUs. */
    public double share() {
        return share;
    }

    public Mechanism mechanism() {
        return mechanism;
    }

    /** The group's name, {@code kiln-probe-<pid>-<n>}. */
    public String name() {
        return name;
    }

    /** The group's directories (for checks that it exists, or no longer does). */
    public List<Path> directories() {
        return joinDirs;
    }

    /** True while the group exists. */
    public boolean exists() {
        return joinDirs.stream().allMatch(Files::isDirectory);
    }

    /** What a run's report says about the limit, e.g. {@code 0.5 CPU via cgroup-v1 (kiln-probe-123-1)}. */
    public String describe() {
        int cpus = Runtime.getRuntime().availableProcessors();
        return format(share) + " CPU via " + mechanism.label() + " (" + name + ")"
                + (share >= cpus ? "; this machine has " + cpus + " CPUs, so the share does not limit anything" : "");
    }

    /**
     * {@code command} prefixed so that its process joins the group before it runs the program (so do all its
     * children): {@code /bin/sh -c 'echo $$ > …/cgroup.procs && exec "$@"'}.
     */
    public List<String> wrap(List<String> command) {
        StringBuilder script = new StringBuilder();
        for (Path d : joinDirs) {
            String procs = d.resolve("cgroup.procs").toString();
            if (procs.indexOf('\'') >= 0) {
                throw new IllegalStateException("the cgroup path " + procs + " contains a quote");
            }
            script.append("echo $$ > '").append(procs).append("' || { echo \"kiln: cannot join the CPU-quota group ")
                    .append(procs).append("\" >&2; exit 125; }; ");
        }
        script.append("exec \"$@\"");
        List<String> out = new ArrayList<>(List.of("/bin/sh", "-c", script.toString(), "kiln-cpu-quota"));
        out.addAll(command);
        return out;
    }

    /** The group's CPU time so far, in nanoseconds, or empty when it cannot be read. */
    public OptionalLong cpuUsageNanos() {
        if (usageDir == null) {
            return OptionalLong.empty();
        }
        try {
            if (usageV2) {
                for (String line : Files.readAllLines(usageDir.resolve("cpu.stat"))) {
                    if (line.startsWith("usage_usec ")) {
                        return OptionalLong.of(Long.parseLong(line.substring(11).trim()) * 1000);
                    }
                }
                return OptionalLong.empty();
            }
            return OptionalLong.of(Long.parseLong(Files.readString(usageDir.resolve("cpuacct.usage")).trim()));
        } catch (IOException | NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    /** Pids in the group now. */
    public List<Long> pids() {
        return joinDirs.isEmpty() ? List.of() : pidsIn(joinDirs.get(0));
    }

    /** Ends whatever is still in the group and removes it. Idempotent; never throws. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shuttingDown) {
            // Called from the hook itself, or during shutdown: nothing to unregister.
        }
        for (Path d : joinDirs) {
            killAll(d);
        }
        if (holder != null) {
            holder.destroyForcibly(); // the scope ends with its last process
            ProcessTree.awaitQuietly(holder, 2_000);
        }
        for (int i = ownedDirs.size() - 1; i >= 0; i--) {
            removeDir(ownedDirs.get(i));
        }
    }

    /**
     * Removes groups named for a Kiln process that is no longer alive (it was killed before it could remove them),
     * ending what still runs in them. Returns how many were removed.
     */
    public static int removeLeftovers() {
        int removed = 0;
        List<Path> parents = new ArrayList<>();
        Path v2 = cgroupV2Root();
        if (v2 != null) {
            parents.add(v2);
        }
        for (String c : List.of("cpu", "cpuacct")) {
            Path m = cgroupV1Mount(c);
            if (m != null && !parents.contains(m)) {
                parents.add(m);
            }
        }
        for (Path parent : parents) {
            try (DirectoryStream<Path> dirs = Files.newDirectoryStream(parent, PREFIX + "*")) {
                for (Path d : dirs) {
                    Matcher m = NAME.matcher(d.getFileName().toString());
                    if (!m.matches() || !Files.isDirectory(d)) {
                        continue;
                    }
                    long pid = Long.parseLong(m.group(1));
                    if (pid == SELF || ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                        continue; // ours, or a live Kiln's
                    }
                    // Rounds: a process that entered the group while its members were being killed (a wrapper
                    // exec'ing its server), or one not yet reaped, keeps the group busy past one round.
                    for (int round = 0; round < 3; round++) {
                        killAll(d);
                        if (removeDir(d)) {
                            removed++;
                            break;
                        }
                    }
                }
            } catch (IOException e) {
                // Not listable: nothing of ours can be there.
            }
        }
        return removed;
    }

    private static void killAll(Path dir) {
        List<ProcessHandle> killed = new ArrayList<>();
        for (long pid : pidsIn(dir)) {
            ProcessHandle.of(pid).ifPresent(h -> {
                if (h.destroyForcibly()) {
                    killed.add(h);
                }
            });
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        for (ProcessHandle h : killed) {
            while (h.isAlive() && System.nanoTime() < deadline) {
                try {
                    h.onExit().get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                    break;
                }
            }
        }
    }

    private static List<Long> pidsIn(Path dir) {
        List<Long> out = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(dir.resolve("cgroup.procs"))) {
                if (!line.isBlank()) {
                    out.add(Long.parseLong(line.trim()));
                }
            }
        } catch (IOException | NumberFormatException e) {
            // Gone already.
        }
        return out;
    }

    /** rmdir, retried briefly: a process just killed can keep a group busy for a moment. */
    private static boolean removeDir(Path dir) {
        for (int attempt = 0; attempt < 50; attempt++) {
            try {
                Files.deleteIfExists(dir);
                return true;
            } catch (IOException e) {
                try {
                    Thread.sleep(20);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    // keep trying without sleeping: a cancelled probe must still remove its group
                }
            }
        }
        return !Files.exists(dir);
    }

    private static void writeQuietly(Path file, String value) {
        try {
            Files.writeString(file, value);
        } catch (IOException ignored) {
            // A weight is a refinement: without it the quota still holds.
        }
    }

    // --- where the hierarchies are (from /proc/self/mountinfo) ---

    private record Mount(String point, String type, List<String> options) {
    }

    private static List<Mount> mounts() {
        List<Mount> out = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
                int sep = line.indexOf(" - ");
                if (sep < 0) {
                    continue;
                }
                String[] left = line.substring(0, sep).split(" ");
                String[] right = line.substring(sep + 3).split(" ");
                if (left.length < 5 || right.length < 3) {
                    continue;
                }
                out.add(new Mount(unescape(left[4]), right[0], List.of(right[2].split(","))));
            }
        } catch (IOException e) {
            // Not Linux, or no /proc: no cgroups.
        }
        return out;
    }

    private static String unescape(String s) {
        Matcher m = Pattern.compile("\\\\([0-7]{3})").matcher(s);
        StringBuilder b = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(b, Matcher.quoteReplacement(String.valueOf((char) Integer.parseInt(m.group(1), 8))));
        }
        m.appendTail(b);
        return b.toString();
    }

    static @Nullable Path cgroupV1Mount(String controller) {
        for (Mount m : mounts()) {
            if (m.type().equals("cgroup") && m.options().contains(controller)) {
                return Path.of(m.point());
            }
        }
        return null;
    }

    private static @Nullable Path cgroupV2Mount() {
        for (Mount m : mounts()) {
            if (m.type().equals("cgroup2")) {
                return Path.of(m.point());
            }
        }
        return null;
    }

    /** The v2 directory Kiln creates groups in: the mount's root (only root may create there). */
    private static @Nullable Path cgroupV2Root() {
        return cgroupV2Mount();
    }

    private static List<String> controllers(Path v2) {
        try {
            return List.of(Files.readString(v2.resolve("cgroup.controllers")).trim().split("\\s+"));
        } catch (IOException e) {
            return List.of();
        }
    }

    private static @Nullable String ownCgroupV2(Path procCgroup) {
        try {
            for (String line : Files.readAllLines(procCgroup)) {
                if (line.startsWith("0::")) {
                    return line.substring(3);
                }
            }
        } catch (IOException e) {
            // gone
        }
        return null;
    }

    private static boolean onPath(Map<String, String> env, String tool) {
        for (String d : env.getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, tool))) {
                return true;
            }
        }
        return false;
    }

    static String format(double share) {
        return share == Math.rint(share) ? Long.toString((long) share) : Double.toString(share);
    }
}
