package dev.kiln.core.seed;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.core.workspace.Durations;
import dev.kiln.core.workspace.WorkspaceException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A seed-cache target from {@code targets/<name>/target.json}: where its {@code pyproject.toml} and
 * {@code uv.lock} come from, and how to sync them.
 *
 * @param name the target's name (its directory under {@code targets/})
 * @param file the target.json it was read from
 * @param source where the two files come from
 * @param python the Python version uv should use, if pinned
 * @param allExtras whether to sync every extra
 * @param extras the extras to sync when not all
 * @param timeout how long a warm may run before it is killed
 */
record Target(String name, Path file, Source source, Optional<String> python, boolean allExtras, List<String> extras,
        Duration timeout) {

    static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(30);
    static final String FILE_NAME = "target.json";
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Where {@code pyproject.toml} and {@code uv.lock} are read from. */
    sealed interface Source permits DirSource, GitSource {
        String describe();
    }

    /** A local directory holding both files. */
    record DirSource(Path dir) implements Source {
        @Override
        public String describe() {
            return dir.toString();
        }
    }

    /** A git repository, read at {@code ref} with {@code git show} (never checked out). */
    record GitSource(Path repo, String ref, String path) implements Source {
        @Override
        public String describe() {
            return repo + "@" + ref + (path.isEmpty() ? "" : ":" + path);
        }
    }

    /**
     * Checks a git ref before it reaches git: one revision (a branch, tag, commit, or {@code HEAD~1}-style
     * expression), never an option ({@code --output=FILE} makes {@code git show} write files) and never a
     * {@code REF:PATH} (Kiln adds the path itself). The characters are those git allows in ref names plus the
     * revision operators {@code ~ ^ @ { }}; anything else git would reject anyway.
     */
    static String checkRef(Path file, String ref) {
        if (ref.isEmpty() || ref.startsWith("-") || !ref.matches("[A-Za-z0-9._/@{}^~+-]+") || ref.contains("..")
                || ref.endsWith("/") || ref.endsWith(".lock")) {
            throw new WorkspaceException(file + ": source.ref '" + ref + "' is not a git ref; write a branch, tag or commit"
                    + " (letters, digits and . _ / - + ~ ^ @ { }, not starting with '-'), e.g. \"main\" or \"v1.2\"");
        }
        return ref;
    }

    /** Checks a target name before it is used as a path segment. */
    static String checkName(String name) {
        if (!NAME.matcher(name).matches()) {
            throw new WorkspaceException("'" + name + "' is not a target name: use letters, digits, '.', '_' and '-',"
                    + " starting with a letter or digit");
        }
        return name;
    }

    /**
     * Reads the target {@code name} from {@code targetsDir}.
     *
     * @throws WorkspaceException naming the file and the field when the target is missing or malformed
     */
    static Target read(Path targetsDir, String name) {
        checkName(name);
        Path file = targetsDir.resolve(name).resolve(FILE_NAME);
        JsonNode json;
        try {
            json = JSON.readTree(Files.readString(file));
        } catch (NoSuchFileException e) {
            throw new WorkspaceException("No target '" + name + "': " + file + " does not exist."
                    + " Create it with {\"source\": {\"dir\": \".\"}} beside a pyproject.toml and uv.lock.");
        } catch (IOException e) {
            throw new WorkspaceException(file + ": cannot read the target: " + e.getMessage(), e);
        }
        if (json == null || !json.isObject()) {
            throw new WorkspaceException(file + ": a target must be a JSON object");
        }
        Path base = targetsDir.resolve(name); // the target's directory, which relative sources start from
        JsonNode src = json.get("source");
        if (src == null || !src.isObject()) {
            throw new WorkspaceException(file + ": field 'source' is missing; write {\"dir\": \"PATH\"} or"
                    + " {\"git\": \"REPO\", \"ref\": \"main\", \"path\": \"sub/dir\"}");
        }
        Source source;
        if (src.hasNonNull("dir") && src.hasNonNull("git")) {
            throw new WorkspaceException(file + ": 'source' has both 'dir' and 'git'; keep one");
        } else if (src.hasNonNull("dir")) {
            source = new DirSource(base.resolve(text(file, src, "source.dir")).normalize());
        } else if (src.hasNonNull("git")) {
            String repo = text(file, src, "source.git");
            if (repo.contains("://") || repo.matches("[^/]+@[^/]+:.*")) {
                throw new WorkspaceException(file + ": source.git '" + repo + "' is a remote URL; Kiln reads a local"
                        + " repository with git show and never fetches. Clone or fetch it locally and point 'git' at that path.");
            }
            String ref = src.hasNonNull("ref") ? checkRef(file, text(file, src, "source.ref")) : "HEAD";
            String path = src.hasNonNull("path") ? text(file, src, "source.path") : "";
            path = path.replace('\\', '/').replaceAll("^/+|/+$", "");
            if (path.equals(".")) {
                path = "";
            }
            source = new GitSource(base.resolve(repo).normalize(), ref, path);
        } else {
            throw new WorkspaceException(file + ": 'source' needs 'dir' or 'git'");
        }
        Optional<String> python = json.hasNonNull("python") ? Optional.of(text(file, json, "python")) : Optional.empty();
        boolean all = false;
        List<String> extras = new ArrayList<>();
        JsonNode ex = json.get("extras");
        if (ex != null && !ex.isNull()) {
            if (ex.isTextual() && ex.asText().equals("all")) {
                all = true;
            } else if (ex.isArray()) {
                for (JsonNode e : ex) {
                    if (!e.isTextual() || e.asText().isBlank()) {
                        throw new WorkspaceException(file + ": 'extras' must list extra names, got " + e);
                    }
                    extras.add(e.asText());
                }
            } else {
                throw new WorkspaceException(file + ": 'extras' must be \"all\" or a list of extra names, got " + ex);
            }
        }
        Duration timeout = DEFAULT_TIMEOUT;
        JsonNode t = json.get("timeout");
        if (t != null && !t.isNull()) {
            try {
                timeout = t.isNumber() ? Duration.ofMillis(Math.round(t.asDouble() * 1000)) : Durations.parse(t.asText());
            } catch (IllegalArgumentException e) {
                throw new WorkspaceException(file + ": field 'timeout': " + e.getMessage(), e);
            }
            if (timeout.isZero() || timeout.isNegative()) {
                throw new WorkspaceException(file + ": field 'timeout' must be positive, got " + t);
            }
        }
        return new Target(name, file, source, python, all, List.copyOf(extras), timeout);
    }

    private static String text(Path file, JsonNode node, String field) {
        String leaf = field.substring(field.lastIndexOf('.') + 1);
        JsonNode n = node.get(leaf);
        if (!n.isTextual() || n.asText().isBlank()) {
            throw new WorkspaceException(file + ": field '" + field + "' must be a non-empty string, got " + n);
        }
        return n.asText();
    }

    /** The arguments that select extras and the interpreter, after {@code uv sync}'s fixed flags. */
    List<String> syncArguments() {
        List<String> args = new ArrayList<>();
        if (allExtras) {
            args.add("--all-extras");
        }
        for (String e : extras) {
            args.add("--extra");
            args.add(e);
        }
        python.ifPresent(p -> {
            args.add("--python");
            args.add(p);
        });
        return args;
    }
}
