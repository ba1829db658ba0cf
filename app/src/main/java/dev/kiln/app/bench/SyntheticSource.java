package dev.kiln.app.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

/**
 * Writes a source checkout shaped like the ones uploaded to sandboxes: {@code pyproject.toml},
 * {@code README.md}, {@code LICENSE} and a package directory of Python modules in a few sub-packages. The
 * same seed gives the same tree. With the defaults it is ≈ 353 files and compresses to ≈ 600 KB, the size of
 * the anchor's tool package; {@code kiln bench archive} and the app's tests use it
 * (core's tests have their own small tree generator).
 */
public final class SyntheticSource {

    /** Files written with the defaults (pyproject, README, LICENSE and the package's modules). */
    public static final int DEFAULT_FILES = 353;
    /** The package directory's name. */
    public static final String PACKAGE = "toolkit";

    private static final String[] SUBPACKAGES = {"", "core", "io", "net", "cli", "plugins", "util", "models", "adapters"};
    private static final String[] WORDS = {"request", "response", "handler", "session", "token", "buffer", "config",
        "resource", "payload", "schema", "record", "stream", "result", "context", "manager", "client", "server",
        "worker", "queue", "event", "state", "cache", "index", "entry", "value", "option", "path", "file", "name",
        "limit", "timeout", "retry", "status", "message", "header", "body", "source", "target", "field", "item"};
    private static final String[] VERBS = {"get", "set", "load", "save", "parse", "render", "build", "check", "apply",
        "merge", "split", "open", "close", "read", "write", "send", "fetch", "resolve", "validate", "normalize"};

    private SyntheticSource() {
    }

    /** Writes the default tree ({@value #DEFAULT_FILES} files, seed 1) into {@code root}; returns the members. */
    public static java.util.List<String> write(Path root) throws IOException {
        return write(root, DEFAULT_FILES, 1);
    }

    /**
     * Writes {@code files} files (at least 4) into {@code root}, deterministically for {@code seed}.
     *
     * @return the top-level members: {@code pyproject.toml}, {@code README.md}, {@code LICENSE}, the package
     */
    public static java.util.List<String> write(Path root, int files, long seed) throws IOException {
        if (files < 4) {
            throw new IllegalArgumentException("a synthetic source needs at least 4 files, got " + files);
        }
        Random r = new Random(seed);
        Files.createDirectories(root);
        write(root.resolve("pyproject.toml"), pyproject());
        write(root.resolve("README.md"), readme(r));
        write(root.resolve("LICENSE"), license());
        Path pkg = root.resolve(PACKAGE);
        for (int i = 0; i < files - 3; i++) {
            String sub = SUBPACKAGES[i % SUBPACKAGES.length];
            Path dir = sub.isEmpty() ? pkg : pkg.resolve(sub);
            Files.createDirectories(dir);
            int index = i / SUBPACKAGES.length;
            String name = index == 0 ? "__init__.py" : VERBS[r.nextInt(VERBS.length)] + "_" + WORDS[r.nextInt(WORDS.length)]
                    + "_" + index + ".py";
            write(dir.resolve(name), module(r, sub, index));
        }
        return java.util.List.of("LICENSE", PACKAGE, "README.md", "pyproject.toml");
    }

    private static void write(Path p, String s) throws IOException {
        Files.write(p, s.getBytes(StandardCharsets.UTF_8));
    }

    private static String module(Random r, String sub, int index) {
        StringBuilder b = new StringBuilder(8192);
        b.append("\"\"\"").append(sentence(r, 8)).append("\n\n").append(sentence(r, 20)).append("\n\"\"\"\n\n");
        b.append("from __future__ import annotations\n\nimport logging\nimport os\nfrom dataclasses import dataclass, field\n");
        b.append("from typing import Any, Iterable, Optional\n\n");
        b.append("log = logging.getLogger(__name__)\n\n");
        int functions = 4 + r.nextInt(6);
        for (int f = 0; f < functions; f++) {
            String noun = WORDS[r.nextInt(WORDS.length)];
            if (r.nextInt(3) == 0) {
                String cls = capital(noun) + capital(WORDS[r.nextInt(WORDS.length)]) + (index + f);
                b.append("\n@dataclass\nclass ").append(cls).append(":\n    \"\"\"").append(sentence(r, 10)).append("\"\"\"\n\n");
                for (int k = 0; k < 3 + r.nextInt(4); k++) {
                    b.append("    ").append(ident(r)).append(": ").append(r.nextBoolean() ? "int = " + r.nextInt(1000)
                            : "str = \"" + WORDS[r.nextInt(WORDS.length)] + "\"").append('\n');
                }
                b.append('\n');
            }
            String fn = VERBS[r.nextInt(VERBS.length)] + "_" + noun + "_" + Integer.toHexString(r.nextInt(0xffff));
            b.append("\ndef ").append(fn).append("(").append(ident(r)).append(": Any, ").append(ident(r))
                    .append(": Optional[int] = None) -> dict[str, Any]:\n");
            b.append("    \"\"\"").append(sentence(r, 12)).append("\"\"\"\n");
            int lines = 6 + r.nextInt(14);
            for (int l = 0; l < lines; l++) {
                b.append(line(r));
            }
            b.append("    return {\"").append(noun).append("\": ").append(ident(r)).append(", \"ok\": True}\n\n");
        }
        b.append("\n__all__ = [\"").append(sub.isEmpty() ? PACKAGE : sub).append("\"]\n");
        return b.toString();
    }

    private static String line(Random r) {
        String a = ident(r);
        String v = VERBS[r.nextInt(VERBS.length)];
        return switch (r.nextInt(6)) {
            case 0 -> "    " + a + " = " + v + "_" + WORDS[r.nextInt(WORDS.length)] + "(" + ident(r) + ", " + r.nextInt(512) + ")\n";
            case 1 -> "    if " + a + " is None:\n        raise ValueError(\"" + sentence(r, 5) + "\")\n";
            case 2 -> "    for " + a + " in " + ident(r) + ":\n        log.debug(\"" + v + " %s\", " + a + ")\n";
            case 3 -> "    " + a + " = os.environ.get(\"" + WORDS[r.nextInt(WORDS.length)].toUpperCase() + "_"
                    + Integer.toHexString(r.nextInt(4096)).toUpperCase() + "\", \"" + r.nextInt(100) + "\")\n";
            case 4 -> "    # " + sentence(r, 9) + "\n";
            default -> "    " + a + " = [" + ident(r) + " for " + ident(r) + " in range(" + r.nextInt(64) + ")]\n";
        };
    }

    private static String ident(Random r) {
        return WORDS[r.nextInt(WORDS.length)] + (r.nextInt(4) == 0 ? "_" + WORDS[r.nextInt(WORDS.length)] : "")
                + (r.nextBoolean() ? Integer.toString(r.nextInt(100)) : "");
    }

    private static String sentence(Random r, int words) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < words; i++) {
            String w = r.nextInt(3) == 0 ? VERBS[r.nextInt(VERBS.length)] : WORDS[r.nextInt(WORDS.length)];
            b.append(i == 0 ? capital(w) : w).append(i == words - 1 ? "." : " ");
        }
        return b.toString();
    }

    private static String capital(String s) {
        return Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }

    private static String pyproject() {
        return """
                [project]
                name = "toolkit"
                version = "1.4.2"
                description = "Synthetic tool package for Kiln's archive benchmark"
                requires-python = ">=3.10"
                dependencies = ["mcp>=1.2", "httpx>=0.27", "pydantic>=2.7"]

                [build-system]
                requires = ["hatchling"]
                build-backend = "hatchling.build"
                """;
    }

    private static String readme(Random r) {
        StringBuilder b = new StringBuilder("# toolkit\n\n");
        for (int i = 0; i < 30; i++) {
            b.append(sentence(r, 14)).append(i % 5 == 4 ? "\n\n" : " ");
        }
        return b.append('\n').toString();
    }

    private static String license() {
        return "MIT License\n\nCopyright (c) 2026 Kiln\n\n"
                + "Permission is hereby granted, free of charge, to any person obtaining a copy of this software and "
                + "associated documentation files (the \"Software\"), to deal in the Software without restriction.\n"
                + "THE SOFTWARE IS PROVIDED \"AS IS\", WITHOUT WARRANTY OF ANY KIND.\n";
    }
}
