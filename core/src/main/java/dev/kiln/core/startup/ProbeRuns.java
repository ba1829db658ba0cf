package dev.kiln.core.startup;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.kiln.core.workspace.WorkspaceException;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * Saved probe runs of a workspace, {@code observer/probes/probe-<UTC stamp>.json}, each the report's JSON, so the
 * console (or a script) can compare a run with the ones before it — e.g. before and after a precompile.
 */
public final class ProbeRuns {
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss.SSS'Z'").withZone(ZoneOffset.UTC);
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private ProbeRuns() {
    }

    /** Where {@code workspace} keeps its runs. */
    public static Path dir(WorkspaceLayout workspace) {
        return workspace.observerDir().resolve("probes");
    }

    /** Writes {@code report} atomically (a reader never sees half a run) and returns its path. */
    public static Path save(WorkspaceLayout workspace, ProbeReport report) {
        return write(workspace, "probe-", report.startedAt(), report.toJson());
    }

    /**
     * Writes a sweep beside the runs, {@code sweep-<UTC stamp>.json} (its JSON: {@code matrix}, {@code verdicts}, each
     * column's report under {@code runs}); a cancelled sweep is saved too, with {@code "partial": true}.
     */
    public static Path saveSweep(WorkspaceLayout workspace, SweepReport sweep) {
        return write(workspace, "sweep-", sweep.startedAt(), sweep.toJson());
    }

    private static Path write(WorkspaceLayout workspace, String prefix, java.time.Instant at,
            com.fasterxml.jackson.databind.node.ObjectNode json) {
        Path dir = dir(workspace);
        try {
            Files.createDirectories(dir);
            Path target = dir.resolve(prefix + STAMP.format(at) + ".json");
            Path tmp = Files.createTempFile(dir, "." + prefix, ".tmp");
            Files.write(tmp, JSON.writeValueAsBytes(json));
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return target;
        } catch (IOException e) {
            throw new WorkspaceException("Could not save the probe run into " + dir + ": " + e.getMessage(), e);
        }
    }

    /** The saved runs, newest first; none when the workspace has never been probed. */
    public static List<Path> list(WorkspaceLayout workspace) {
        Path dir = dir(workspace);
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().matches("probe-.*\\.json"))
                    .sorted(Comparator.comparing((Path p) -> p.getFileName().toString()).reversed()).toList();
        } catch (IOException e) {
            throw new WorkspaceException("Cannot list " + dir + ": " + e.getMessage(), e);
        }
    }

    /** The saved sweeps, newest first. */
    public static List<Path> listSweeps(WorkspaceLayout workspace) {
        Path dir = dir(workspace);
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().matches("sweep-.*\\.json"))
                    .sorted(Comparator.comparing((Path p) -> p.getFileName().toString()).reversed()).toList();
        } catch (IOException e) {
            throw new WorkspaceException("Cannot list " + dir + ": " + e.getMessage(), e);
        }
    }

    /** A saved run or sweep as stored ({@code servers}, {@code summary}, {@code runs}): what the API serves. */
    public static JsonNode load(Path run) {
        try {
            return JSON.readTree(run.toFile());
        } catch (IOException e) {
            throw new WorkspaceException(run + " is not a readable probe run: " + e.getMessage(), e);
        }
    }

    /** A saved run, read ({@link SavedProbeRun#fromJson}); the exception names the file. */
    public static SavedProbeRun read(Path run) {
        try {
            return SavedProbeRun.fromJson(load(run), run.toString());
        } catch (IllegalArgumentException e) {
            throw new WorkspaceException(String.valueOf(e.getMessage()), e); // fromJson names the file in its message
        }
    }

    /** A saved sweep, read ({@link SavedSweep#fromJson}); the exception names the file. */
    public static SavedSweep readSweep(Path sweep) {
        try {
            return SavedSweep.fromJson(load(sweep), sweep.toString());
        } catch (IllegalArgumentException e) {
            throw new WorkspaceException(String.valueOf(e.getMessage()), e); // fromJson names the file in its message
        }
    }

    /**
     * One server's median start in an earlier run and now.
     *
     * @param server the server
     * @param beforeMs its median spawn → initialize in the earlier run, or null (absent or not started)
     * @param afterMs the same now, or null
     */
    public record Change(String server, @Nullable Double beforeMs, @Nullable Double afterMs) {
        /** after / before, or null when either is missing. */
        public @Nullable Double ratio() {
            return beforeMs == null || afterMs == null || beforeMs == 0 ? null : afterMs / beforeMs;
        }
    }

    /** Compares {@code now} with a saved {@code earlier} run, server by server (the servers of {@code now}). */
    public static List<Change> compare(SavedProbeRun earlier, ProbeReport now) {
        java.util.Map<String, @Nullable Double> before = new java.util.HashMap<>();
        for (SavedProbeRun.Server s : earlier.servers()) {
            before.put(s.name(), s.initializeMsMedian());
        }
        return now.servers().stream()
                .map(s -> new Change(s.name(), before.get(s.name()), s.initializeMsMedian()))
                .toList();
    }
}
