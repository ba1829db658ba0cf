package dev.kiln.core.seed;

import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/** Real files and a real uv for the seed tests. */
public final class SeedFixtures {
    private SeedFixtures() {
    }

    /** The real uv on PATH; the seed tests need it (CI installs it with pip). */
    public static Path uv() {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, "uv");
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return p.toAbsolutePath();
            }
        }
        return fail("uv is needed for the seed tests and is not on PATH; install it with `pip install uv`");
    }

    /** A workspace with an empty kiln.json. */
    public static Path workspace(Path dir) throws IOException {
        Files.createDirectories(dir.resolve("tasks"));
        Files.writeString(dir.resolve("kiln.json"), "{}\n");
        return dir;
    }

    /** Sets kiln.json's {@code uv} to {@code uv}. */
    static void useUv(Path ws, Path uv) throws IOException {
        Files.writeString(ws.resolve("kiln.json"), "{\"uv\": \"" + uv + "\"}\n");
    }

    /** A target {@code name} whose pyproject.toml and uv.lock are the test fixture {@code fixture}, read from its own directory. */
    public static Path target(Path ws, String name, String fixture) throws IOException {
        Path dir = ws.resolve("targets").resolve(name);
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("target.json"), "{\"source\": {\"dir\": \".\"}, \"extras\": \"all\"}\n");
        useFixture(dir, fixture);
        return dir;
    }

    public static void useFixture(Path targetDir, String fixture) throws IOException {
        for (String f : List.of("pyproject.toml", "uv.lock")) {
            Files.write(targetDir.resolve(f), resource(fixture + "/" + f));
        }
    }

    static byte[] resource(String name) throws IOException {
        try (InputStream in = SeedFixtures.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IOException("test resource missing: " + name);
            }
            return in.readAllBytes();
        }
    }

    /**
     * A stand-in for uv at {@code dir}/uv: appends its arguments to {@code log}, optionally dumps its environment to
     * {@code envDump}, then execs the real uv — so the warm still runs real uv.
     */
    public static Path uvWrapper(Path dir, Path log, Path envDump) throws IOException {
        Files.createDirectories(dir);
        Path w = dir.resolve("uv");
        String dump = envDump == null ? "" : "env > '" + envDump + "'\n";
        Files.writeString(w, "#!/bin/sh\necho \"$*\" >> '" + log + "'\n" + dump + "exec '" + uv() + "' \"$@\"\n");
        Files.setPosixFilePermissions(w, PosixFilePermissions.fromString("rwxr-xr-x"));
        return w;
    }

    /** Every entry of a tree: relative path → kind and content digest (link target for links). */
    /**
     * Stand-in {@code node} and {@code npm} in {@code bin}: {@code --version} says v24.0.0; every other run appends
     * "--- TOOL ARG1" and its whole environment to {@code log}, and npm writes one cache blob ("tarball") into its
     * {@code NPM_CONFIG_CACHE}. For what a server seed's warm hands its package manager, without a registry.
     */
    static void fakeNodeAndNpm(Path bin, Path log) throws IOException {
        Files.createDirectories(bin);
        for (String tool : java.util.List.of("node", "npm")) {
            Path exe = bin.resolve(tool);
            Files.writeString(exe, "#!/bin/sh\n"
                    + "if [ \"$1\" = --version ]; then echo v24.0.0; exit 0; fi\n"
                    + "{ echo \"--- " + tool + " $1\"; env; } >> '" + log + "'\n"
                    + (tool.equals("npm") ? "mkdir -p \"$NPM_CONFIG_CACHE/_cacache/content-v2\"\n"
                            + "echo tarball > \"$NPM_CONFIG_CACHE/_cacache/content-v2/blob\"\n" : ""));
            Files.setPosixFilePermissions(exe, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        }
    }

    public static Map<String, String> digest(Path root) throws IOException {
        Map<String, String> out = new TreeMap<>();
        if (!Files.exists(root)) {
            return out;
        }
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                out.put(root.relativize(dir) + "/", "dir");
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                String rel = root.relativize(file).toString();
                if (attrs.isSymbolicLink()) {
                    out.put(rel, "link:" + Files.readSymbolicLink(file));
                } else {
                    out.put(rel, "file:" + sha(Files.readAllBytes(file)));
                }
                return FileVisitResult.CONTINUE;
            }
        });
        return out;
    }

    static String sha(byte[] b) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Names in {@code seedsDir} that a warm in flight uses ({@code .<name>.warm-*}). */
    static List<String> warmLeftovers(Path seedsDir) throws IOException {
        List<String> out = new ArrayList<>();
        if (!Files.isDirectory(seedsDir)) {
            return out;
        }
        try (var s = Files.list(seedsDir)) {
            s.map(p -> p.getFileName().toString()).filter(n -> n.contains(".warm-") || n.contains(".old-")).forEach(out::add);
        }
        return out;
    }

    /**
     * Whether process {@code pid} is gone (or a zombie waiting for its new parent to reap it), allowing up to 10 s
     * for a SIGKILL to land.
     */
    public static boolean gone(long pid) throws InterruptedException {
        for (int i = 0; i < 200; i++) {
            var h = ProcessHandle.of(pid);
            if (h.isEmpty() || !h.get().isAlive() || zombie(pid)) {
                return true;
            }
            Thread.sleep(50);
        }
        return false;
    }

    private static boolean zombie(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            return stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z");
        } catch (IOException e) {
            return true;
        }
    }

    /** A process's exit code and its merged output. */
    public record Exit(int code, String output) {
    }

    /**
     * A job's install: {@code uv sync --offline --frozen} of the target's files into a fresh venv, with
     * {@code cache} as its only cache.
     */
    public static Exit jobSyncOffline(Path targetDir, Path cache, Path scratch) throws IOException, InterruptedException {
        Path project = Files.createDirectories(scratch.resolve("project"));
        for (String f : List.of("pyproject.toml", "uv.lock")) {
            Files.copy(targetDir.resolve(f), project.resolve(f), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        ProcessBuilder pb = new ProcessBuilder(uv().toString(), "sync", "--offline", "--frozen", "--no-install-project")
                .directory(project.toFile()).redirectErrorStream(true);
        pb.environment().put("UV_CACHE_DIR", cache.toString());
        pb.environment().put("UV_PROJECT_ENVIRONMENT", scratch.resolve("venv").toString());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return fail("uv sync --offline did not finish: " + out);
        }
        return new Exit(p.exitValue(), out);
    }

    /**
     * The plan of an npx-launched server {@code server} of {@code pkg@version} (exact), as {@link ServerSeeds#plan} would
     * make it on a host whose node is {@code node v20.20.2}, without asking node or the registry.
     */
    public static ServerSeeds.Plan npmServerPlan(SeedCaches caches, String server, String pkg, String version) {
        String runtime = "node v20.20.2";
        String registry = "https://registry.npmjs.org/";
        String key = ServerSeeds.key(dev.kiln.core.startup.Launcher.NPX, pkg, version, runtime, registry);
        return new ServerSeeds.Plan(server, dev.kiln.core.startup.Launcher.NPX, pkg, version, version,
                pkg.substring(pkg.lastIndexOf('/') + 1), List.of(), runtime, registry, key,
                caches.seedsDir().resolve(ServerSeeds.DIR).resolve(key));
    }

    /**
     * A made-up runtime seed of {@code plan} (no npm run): {@code files} cache blobs, an installed prefix with its
     * relative {@code .bin} link and an executable, the manifest a warm writes; laid in {@link ServerSeeds#stagingDir}
     * and installed through {@link ServerSeeds#install}, which records nothing itself: the hash file is the digest of
     * the files, as a warm writes it. {@code salt} makes the content differ.
     */
    public static void serverSeed(ServerSeeds seeds, ServerSeeds.Plan plan, int files, String salt) throws IOException {
        Path d = seeds.stagingDir(plan);
        for (int i = 0; i < files; i++) {
            Path f = d.resolve("npm-cache/_cacache/content-v2/sha512/" + String.format("%02x", i % 61) + "/blob" + i);
            Files.createDirectories(f.getParent());
            Files.writeString(f, salt + " tarball bytes " + i + "\n");
        }
        Path pkgDir = d.resolve("prefix/node_modules/" + plan.pkg());
        Files.createDirectories(pkgDir.resolve("dist"));
        Path entry = pkgDir.resolve("dist/index.js");
        Files.writeString(entry, "#!/usr/bin/env node\nconsole.log('" + salt + "');\n");
        entry.toFile().setExecutable(true);
        Files.writeString(pkgDir.resolve("package.json"), "{\"name\": \"" + plan.pkg() + "\", \"version\": \""
                + plan.version() + "\"}\n");
        Files.createDirectories(d.resolve("prefix/node_modules/.bin"));
        Files.createSymbolicLink(d.resolve("prefix/node_modules/.bin/" + plan.executable()),
                d.resolve("prefix/node_modules/.bin").relativize(entry));
        Files.writeString(d.resolve(SeedStore.MANIFEST_FILE), "{\"server\": \"" + plan.server() + "\", \"launcher\": \"npx\","
                + " \"package\": \"" + plan.pkg() + "\", \"version\": \"" + plan.version() + "\", \"runtime\": \""
                + plan.runtimeVersion() + "\", \"registry\": \"" + plan.registry() + "\"}\n");
        Files.writeString(d.resolve(SeedStore.HASH_FILE), ServerSeeds.hash(d).sha() + "\n", StandardCharsets.US_ASCII);
        seeds.install(plan, d, Cancellation.create());
    }
}
