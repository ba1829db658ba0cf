package dev.kiln.core.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * The daemons an operator knows, by name, in their order: {@code daemons.json} in the user's config directory
 * (beside the console's settings), shared by the console's Fleet page and {@code kiln attach NAME}.
 *
 * <pre>{@code {"daemons": [{"name": "eval-3", "url": "https://eval-3:7117/",
 *               "token_file": "/home/op/.config/kiln/eval-3.token", "pin": "AB:CD:…"}]}}</pre>
 *
 * <p>A relative {@code token_file} is relative to the list's directory. An immutable value: edits return a new list,
 * and {@link #update} applies one to the file as it is now (another console's edit is not lost), writing a temp
 * file and renaming it over the old one (a crash leaves the old list or the new one). A file that does not read is
 * never overwritten: {@link #read} and {@link #update} throw an {@link IOException} naming the file and what is wrong
 * with it, and the operator fixes or moves it. A list is bounded ({@link #MAX_BYTES}, {@link #MAX_DAEMONS}): a 95 MB
 * file kept {@code kiln status --all} busy past a minute at 3.6 GB, so a larger one is refused unread.
 */
public final class DaemonList {
    /** The file's name in the config directory. */
    public static final String FILE = "daemons.json";
    /** The largest list read: a thousand daemons of long names and paths fit in a fraction of it. */
    public static final int MAX_BYTES = 1 << 20;
    /** The most daemons a list may hold: {@code kiln status --all} and the Fleet page ask every one of them. */
    public static final int MAX_DAEMONS = 1_000;
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final DaemonList EMPTY = new DaemonList(List.of());

    private final List<DaemonEntry> daemons;

    private DaemonList(List<DaemonEntry> daemons) {
        this.daemons = List.copyOf(daemons);
        if (this.daemons.size() > MAX_DAEMONS) {
            throw new IllegalArgumentException("a daemon list holds at most " + MAX_DAEMONS + " daemons");
        }
        Set<String> seen = new HashSet<>();
        for (DaemonEntry d : this.daemons) {
            if (!seen.add(key(d.name()))) {
                throw new IllegalArgumentException("two daemons are called " + d.name() + ": names must differ");
            }
        }
    }

    public static DaemonList empty() {
        return EMPTY;
    }

    /** A list of {@code daemons}, in that order; names must differ (ignoring case). */
    public static DaemonList of(List<DaemonEntry> daemons) {
        return new DaemonList(daemons);
    }

    /** The daemons, in the operator's order. */
    public List<DaemonEntry> daemons() {
        return daemons;
    }

    /** The daemon called {@code name} (ignoring case). */
    public Optional<DaemonEntry> find(String name) {
        String k = key(name);
        return daemons.stream().filter(d -> key(d.name()).equals(k)).findFirst();
    }

    /** {@code d} in place of the daemon of the same name, or added last. */
    public DaemonList with(DaemonEntry d) {
        return replace(d.name(), d);
    }

    /**
     * {@code d} in place of the daemon called {@code name} (a rename keeps its place), or added last when there is none.
     *
     * @throws IllegalArgumentException when {@code d}'s name is another daemon's
     */
    public DaemonList replace(String name, DaemonEntry d) {
        List<DaemonEntry> out = new ArrayList<>();
        boolean placed = false;
        for (DaemonEntry e : daemons) {
            if (key(e.name()).equals(key(name))) {
                out.add(d);
                placed = true;
            } else {
                out.add(e);
            }
        }
        if (!placed) {
            out.add(d);
        }
        return new DaemonList(out);
    }

    /** Without the daemon called {@code name}; the same list when there is none. */
    public DaemonList without(String name) {
        return new DaemonList(daemons.stream().filter(d -> !key(d.name()).equals(key(name))).toList());
    }

    private static String key(String name) {
        return name.strip().toLowerCase(Locale.ROOT);
    }

    /**
     * Reads {@code file}; a missing file is the empty list.
     *
     * @throws IOException naming the file and what is wrong: larger than {@link #MAX_BYTES} or listing more than
     *     {@link #MAX_DAEMONS} daemons, not a regular file, not JSON, no {@code daemons} array, an entry without a
     *     name or URL, a bad URL or pin, two daemons of one name, or the file cannot be read
     */
    public static DaemonList read(Path file) throws IOException {
        byte[] bytes;
        try {
            bytes = readBounded(file);
        } catch (NoSuchFileException e) {
            return EMPTY;
        } catch (Refused e) {
            throw new IOException(e.getMessage());
        } catch (IOException e) {
            throw new IOException("cannot read the daemon list " + file + ": " + e.getMessage(), e);
        }
        JsonNode root;
        try {
            root = JSON.readTree(bytes);
        } catch (IOException e) {
            throw new IOException("the daemon list " + file + " is not JSON (" + firstLine(e.getMessage())
                    + "); fix it or move it away, kiln will not overwrite it", e);
        }
        if (root == null || root.isMissingNode()) {
            return EMPTY; // an empty file: nothing listed yet
        }
        if (!root.path("daemons").isArray()) {
            throw new IOException("the daemon list " + file + " has no \"daemons\" array ({\"daemons\": [{\"name\": …,"
                    + " \"url\": …}]}); fix it or move it away, kiln will not overwrite it");
        }
        if (root.path("daemons").size() > MAX_DAEMONS) {
            throw new IOException("the daemon list " + file + " lists " + root.path("daemons").size() + " daemons, more than"
                    + " a list may hold (at most " + MAX_DAEMONS + "); trim it or move it away, kiln will not overwrite it");
        }
        List<DaemonEntry> out = new ArrayList<>();
        int i = 0;
        for (JsonNode n : root.path("daemons")) {
            String where = "the daemon list " + file + ", entry " + (i + 1);
            if (!n.path("name").isTextual() || !n.path("url").isTextual()) {
                throw new IOException(where + " needs text \"name\" and \"url\"; fix it or move the file away, kiln will"
                        + " not overwrite it");
            }
            try {
                Optional<Path> token = n.path("token_file").isTextual() && !n.path("token_file").asText().isBlank()
                        ? Optional.of(file.toAbsolutePath().resolveSibling(n.path("token_file").asText().strip()))
                        : Optional.empty();
                Optional<String> pin = n.path("pin").isTextual() ? Optional.of(n.path("pin").asText()) : Optional.empty();
                out.add(new DaemonEntry(n.path("name").asText(), new URI(n.path("url").asText().strip()), token, pin));
            } catch (IllegalArgumentException | java.net.URISyntaxException e) {
                throw new IOException(where + ": " + e.getMessage() + "; fix it or move the file away, kiln will not"
                        + " overwrite it", e);
            }
            i++;
        }
        try {
            return new DaemonList(out);
        } catch (IllegalArgumentException e) {
            throw new IOException("the daemon list " + file + ": " + e.getMessage() + "; fix it or move it away", e);
        }
    }

    /** A list file refused before it is parsed; its message is the whole sentence. */
    private static final class Refused extends IOException {
        private static final long serialVersionUID = 1L;

        Refused(String message) {
            super(message);
        }
    }

    /**
     * The bytes of {@code file}, a regular file (or a symlink to one) of at most {@link #MAX_BYTES}: a FIFO, device or
     * directory is refused on its {@code stat}, unopened, and no more than the bound is ever read (a file growing
     * meanwhile included), so a huge or endless list costs neither minutes nor gigabytes.
     */
    private static byte[] readBounded(Path file) throws IOException {
        BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
        if (!a.isRegularFile()) {
            throw new Refused("the daemon list " + file + " is not a regular file (" + (a.isDirectory() ? "a directory"
                    : "a FIFO, socket or device") + "); move it away, kiln will not overwrite it");
        }
        if (a.size() > MAX_BYTES) {
            throw tooLarge(file, a.size() + " bytes");
        }
        try (InputStream in = Files.newInputStream(file)) {
            byte[] bytes = in.readNBytes(MAX_BYTES + 1);
            if (bytes.length > MAX_BYTES) {
                throw tooLarge(file, "more than " + MAX_BYTES + " bytes");
            }
            return bytes;
        }
    }

    private static Refused tooLarge(Path file, String size) {
        return new Refused("the daemon list " + file + " is " + size + ", more than a daemon list may hold (1 MiB, at most "
                + MAX_DAEMONS + " daemons); trim it or move it away, kiln will not overwrite it");
    }

    /**
     * Applies {@code edit} to the list in {@code file} as it is now and writes the result.
     *
     * @return the list written
     * @throws IOException when the file does not read (it is left as it is) or cannot be written
     * @throws IllegalArgumentException when the edit is refused (a name taken twice)
     */
    public static DaemonList update(Path file, UnaryOperator<DaemonList> edit) throws IOException {
        DaemonList now = edit.apply(read(file));
        now.write(file);
        return now;
    }

    /** The list as its file holds it. */
    public String toJson() {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode arr = root.putArray("daemons");
        for (DaemonEntry d : daemons) {
            ObjectNode n = arr.addObject();
            n.put("name", d.name());
            n.put("url", d.url().toString());
            d.tokenFile().ifPresent(t -> n.put("token_file", t.toString()));
            d.pin().ifPresent(p -> n.put("pin", p));
        }
        try {
            return JSON.writeValueAsString(root) + "\n";
        } catch (IOException e) {
            throw new IllegalStateException("a daemon list did not serialize", e);
        }
    }

    /** Writes the list to {@code file}: a temp file beside it, then renamed over it. */
    private void write(Path file) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, "." + file.getFileName(), ".tmp");
        try {
            Files.writeString(tmp, toJson());
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            Files.deleteIfExists(tmp);
            throw new IOException("cannot write the daemon list " + file + ": " + e.getMessage(), e);
        }
    }

    private static String firstLine(@Nullable String m) {
        if (m == null) {
            return "unreadable";
        }
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DaemonList l && l.daemons.equals(daemons);
    }

    @Override
    public int hashCode() {
        return daemons.hashCode();
    }

    @Override
    public String toString() {
        return "DaemonList" + daemons.stream().map(DaemonEntry::name).toList();
    }
}
