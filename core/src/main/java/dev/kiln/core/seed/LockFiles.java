package dev.kiln.core.seed;

import dev.kiln.core.workspace.WorkspaceException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The two files a warm needs, read from a target's source, and their hash.
 *
 * <p>The hash is SHA-256 over the files sorted by name, each as: name (UTF-8), a zero byte, the content length
 * (8 bytes, big-endian), the content. Lengths make the encoding unambiguous, so no two file sets share a hash.
 */
record LockFiles(Map<String, byte[]> files, String hash) {

    static final List<String> NAMES = List.of("pyproject.toml", "uv.lock");
    private static final long GIT_TIMEOUT_SECONDS = 60;

    static LockFiles of(Map<String, byte[]> files) {
        TreeMap<String, byte[]> sorted = new TreeMap<>(files);
        return new LockFiles(sorted, hash(sorted));
    }

    static String hash(Map<String, byte[]> files) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
        for (Map.Entry<String, byte[]> f : new TreeMap<>(files).entrySet()) {
            sha.update(f.getKey().getBytes(StandardCharsets.UTF_8));
            sha.update((byte) 0);
            sha.update(ByteBuffer.allocate(Long.BYTES).putLong(f.getValue().length).array());
            sha.update(f.getValue());
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    /**
     * Reads both files from the target's source.
     *
     * @throws WorkspaceException saying which file is missing where, or why git could not read it
     */
    static LockFiles read(Target target) {
        Map<String, byte[]> files = new TreeMap<>();
        for (String name : NAMES) {
            files.put(name, readOne(target, name));
        }
        return of(files);
    }

    private static byte[] readOne(Target target, String name) {
        if (target.source() instanceof Target.DirSource d) {
            Path file = d.dir().resolve(name);
            try {
                return Files.readAllBytes(file);
            } catch (NoSuchFileException e) {
                throw new WorkspaceException("Target '" + target.name() + "': " + file + " does not exist"
                        + (Files.isDirectory(d.dir()) ? "" : " (the source directory " + d.dir() + " is missing)")
                        + ". A target needs both pyproject.toml and uv.lock (run `uv lock` to create the lock).");
            } catch (IOException e) {
                throw new WorkspaceException("Target '" + target.name() + "': cannot read " + file + ": " + e.getMessage(), e);
            }
        }
        Target.GitSource g = (Target.GitSource) target.source();
        String inRepo = g.path().isEmpty() ? name : g.path() + "/" + name;
        return gitShow(target.name(), g, inRepo);
    }

    private static byte[] gitShow(String targetName, Target.GitSource g, String inRepo) {
        if (!Files.isDirectory(g.repo())) {
            throw new WorkspaceException("Target '" + targetName + "': git repository " + g.repo() + " does not exist");
        }
        // "--" would make git read a path, not an object; --end-of-options (git 2.24+) ends the options instead,
        // so even a ref that starts with '-' (Target.checkRef refuses those) is an object name, never an option.
        ProcessBuilder pb = new ProcessBuilder("git", "-C", g.repo().toString(), "--no-pager", "show", "--no-textconv",
                "--end-of-options", g.ref() + ":" + inRepo);
        pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        pb.environment().put("GIT_TERMINAL_PROMPT", "0");
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            throw new WorkspaceException("Target '" + targetName + "' is read from git, but git could not be started ("
                    + e.getMessage() + "). Install git (apt-get install git) and retry.", e);
        }
        try {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            Thread drain = new Thread(() -> copy(p.getErrorStream(), err), "git-stderr");
            drain.setDaemon(true);
            drain.start();
            byte[] out;
            try (InputStream in = p.getInputStream()) {
                out = in.readAllBytes();
            }
            if (!p.waitFor(GIT_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new WorkspaceException("Target '" + targetName + "': git show did not finish in "
                        + GIT_TIMEOUT_SECONDS + "s reading " + g.repo());
            }
            drain.join(1_000);
            if (p.exitValue() != 0) {
                String msg = err.toString(StandardCharsets.UTF_8).strip();
                throw new WorkspaceException("Target '" + targetName + "': " + explainGit(g, inRepo, msg));
            }
            return out;
        } catch (IOException e) {
            throw new WorkspaceException("Target '" + targetName + "': reading git failed: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new WorkspaceException("Target '" + targetName + "': interrupted while reading git", e);
        }
    }

    static String explainGit(Target.GitSource g, String inRepo, String stderr) {
        String lower = stderr.toLowerCase(java.util.Locale.ROOT);
        if (lower.contains("not a git repository")) {
            return g.repo() + " is not a git repository";
        }
        if (lower.contains("does not exist in") || lower.contains("exists on disk, but not in")) {
            return "ref '" + g.ref() + "' of " + g.repo() + " has no file " + inRepo
                    + ". Check the target's 'path' and that the file is committed on that ref.";
        }
        if (lower.contains("invalid object name") || lower.contains("unknown revision") || lower.contains("bad revision")
                || lower.contains("ambiguous argument")) {
            return "ref '" + g.ref() + "' does not exist in " + g.repo() + " (git: " + firstLine(stderr) + ")";
        }
        if (lower.contains("dubious ownership")) {
            return g.repo() + " is owned by another user and git refuses to read it; mark it safe with"
                    + " `git config --global --add safe.directory " + g.repo() + "`";
        }
        return "git show " + g.ref() + ":" + inRepo + " in " + g.repo() + " failed: " + firstLine(stderr);
    }

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    private static void copy(InputStream in, ByteArrayOutputStream out) {
        try (in) {
            in.transferTo(out);
        } catch (IOException e) {
            // The process died; its exit code tells the story.
        }
    }
}
