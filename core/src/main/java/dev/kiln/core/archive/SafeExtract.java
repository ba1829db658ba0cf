package dev.kiln.core.archive;

import java.io.BufferedInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.GZIPInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.jspecify.annotations.Nullable;

/**
 * Extraction that cannot write outside its target. The archive is read <em>once</em> (its one stream is copied,
 * while the first pass checks it, into a private unlinked spool that the second pass reads back), so swapping
 * the file between the passes changes nothing. The first pass reads every header and refuses the whole archive
 * if any entry is absolute, climbs with {@code ..}, goes through a symlink the archive itself made, is a link
 * that escapes (each link's target resolved through the links extracted before it, and every link re-checked
 * when a later one could change its meaning), or is a FIFO or device. Only then does the second pass write,
 * checking each entry again against the plan; while writing, each parent's real path is checked again and files
 * are created without following a symlink (defence in depth against a tree changed by someone else during the
 * extraction). When the second pass fails, what it wrote is removed and any file it replaced is put back.
 */
final class SafeExtract {
    /** Chained links followed before giving up (the kernel's own limit is 40). */
    private static final int MAX_LINK_DEPTH = 40;

    /** Opens the archive's bytes. Called once per extraction. */
    @FunctionalInterface
    interface Source {
        InputStream open() throws IOException;
    }

    private SafeExtract() {
    }

    static int extract(String what, Source source, Path into) {
        Path spoolPath = null;
        try {
            spoolPath = Files.createTempFile("kiln-extract-", ".tar.gz");
            // Unlinked right away: only this descriptor reaches it, so nobody can swap or change it.
            try (FileChannel spool = FileChannel.open(spoolPath, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                Files.delete(spoolPath);
                spoolPath = null;
                List<Planned> plan;
                try (InputStream in = source.open()) {
                    plan = check(what, new TeeInput(in, spool));
                } catch (java.nio.file.NoSuchFileException ex) {
                    throw new ArchiveException("Archive " + what + " does not exist", ex);
                }
                Files.createDirectories(into);
                Path base = into.toRealPath();
                spool.position(0);
                return write(what, Channels.newInputStream(spool), base, plan);
            }
        } catch (ArchiveException e) {
            throw e;
        } catch (IOException e) {
            throw new ArchiveException("Could not extract " + what + " into " + into + ": " + e, e);
        } finally {
            if (spoolPath != null) {
                try {
                    Files.deleteIfExists(spoolPath);
                } catch (IOException e) {
                    // a temp file; nothing else to do
                }
            }
        }
    }

    private static TarArchiveInputStream open(String what, InputStream in) throws IOException {
        InputStream raw = new BufferedInputStream(in, 64 * 1024);
        try {
            return new TarArchiveInputStream(new GZIPInputStream(raw, 64 * 1024), "UTF-8");
        } catch (java.util.zip.ZipException e) {
            throw new ArchiveException(what + " is not a gzip'd tar (" + e.getMessage() + ")", e);
        }
    }

    /** An entry as the first pass saw it: the second pass must see the same. */
    private record Planned(String rel, char kind) {
    }

    /** Pass 1: every entry name and link, before anything is written. */
    private static List<Planned> check(String what, InputStream in) throws IOException {
        List<Planned> plan = new ArrayList<>();
        Checker checker = new Checker(what);
        try {
            TarArchiveInputStream tar = open(what, in);
            TarArchiveEntry e;
            while ((e = tar.getNextEntry()) != null) {
                plan.add(checker.accept(e));
            }
            in.transferTo(OutputStream.nullOutputStream()); // the spool gets the whole file, trailing blocks too
        } catch (IOException ex) {
            throw new ArchiveException(what + " is truncated or corrupt (" + ex.getMessage() + "); nothing was extracted", ex);
        }
        return plan;
    }

    /** The rules every entry is held to, given the entries before it. Both passes use one each. */
    private static final class Checker {
        private final String what;
        private final Map<String, String> symlinks = new HashMap<>();
        private final Set<String> files = new HashSet<>();

        Checker(String what) {
            this.what = what;
        }

        Planned accept(TarArchiveEntry e) {
            String rel = relative(what, e.getName());
            String through = throughSymlink(rel, symlinks.keySet());
            if (through != null) {
                throw refuse(what, e.getName(), "goes through the symlink " + through + " made by the archive itself");
            }
            char kind;
            if (e.isSymbolicLink()) {
                checkSymlinkSyntax(what, e.getName(), e.getLinkName());
                symlinks.put(rel, e.getLinkName());
                files.remove(rel);
                // A new link can change what every earlier link means (x -> d/.. before d -> e/f): check them all.
                for (Map.Entry<String, String> l : symlinks.entrySet()) {
                    resolve(l.getKey(), l.getValue());
                }
                kind = 'l';
            } else if (e.isLink()) {
                String target = relative(what, e.getLinkName());
                if (!files.contains(target)) {
                    throw refuse(what, e.getName(), "is a hard link to " + e.getLinkName()
                            + ", which is not a regular file earlier in the archive");
                }
                symlinks.remove(rel);
                files.add(rel);
                kind = 'h';
            } else if (e.isDirectory()) {
                if (symlinks.containsKey(rel)) {
                    throw refuse(what, e.getName(), "is a directory where the archive made a symlink");
                }
                kind = 'd';
            } else if (e.isFIFO()) {
                throw refuse(what, e.getName(), "is a FIFO; extraction makes only files, directories and links");
            } else if (e.isCharacterDevice()) {
                throw refuse(what, e.getName(), "is a character device; extraction makes only files, directories and links");
            } else if (e.isBlockDevice()) {
                throw refuse(what, e.getName(), "is a block device; extraction makes only files, directories and links");
            } else if (e.isFile() && !e.isSparse()) {
                symlinks.remove(rel);
                files.add(rel);
                kind = 'f';
            } else {
                throw refuse(what, e.getName(), "has an entry type extraction does not support (type '"
                        + (char) e.getLinkFlag() + "')");
            }
            return new Planned(rel, kind);
        }

        /** Resolves the link {@code rel -> target} through the archive's links; refuses it when it leaves. */
        private void resolve(String rel, String target) {
            List<String> stack = new ArrayList<>(List.of(rel.split("/")));
            stack.remove(stack.size() - 1);
            walk(rel, target, stack, target, 0);
        }

        private void walk(String rel, String linkName, List<String> stack, String target, int depth) {
            if (depth > MAX_LINK_DEPTH) {
                throw refuse(what, rel, "is a symlink to " + linkName + " through more than " + MAX_LINK_DEPTH + " links");
            }
            if (target.startsWith("/") || target.startsWith("\\")) {
                throw refuse(what, rel, "is a symlink to " + linkName + ", which points outside the target directory");
            }
            for (String part : target.split("[/\\\\]")) {
                if (part.isEmpty() || part.equals(".")) {
                    continue;
                }
                if (part.equals("..")) {
                    if (stack.isEmpty()) {
                        throw refuse(what, rel, "is a symlink to " + linkName + ", which points outside the target directory");
                    }
                    stack.remove(stack.size() - 1);
                    continue;
                }
                stack.add(part);
                String at = String.join("/", stack);
                String next = symlinks.get(at);
                if (next != null) {
                    stack.remove(stack.size() - 1); // a link resolves from the directory that holds it
                    walk(rel, linkName, stack, next, depth + 1);
                }
            }
        }
    }

    /** Pass 2: write. Directory modes and times are set last, deepest first, so writing into them still works. */
    private static int write(String what, InputStream in, Path base, List<Planned> plan) throws IOException {
        List<Path> dirs = new ArrayList<>();
        List<TarArchiveEntry> dirEntries = new ArrayList<>();
        Undo undo = new Undo();
        Checker checker = new Checker(what);
        int count = 0;
        boolean done = false;
        try {
            TarArchiveInputStream tar = open(what, in);
            TarArchiveEntry e;
            byte[] buf = new byte[64 * 1024];
            while ((e = tar.getNextEntry()) != null) {
                Planned p = checker.accept(e);
                if (count >= plan.size() || !plan.get(count).equals(p)) {
                    throw new ArchiveException(what + " changed while it was being extracted (entry " + (count + 1)
                            + " is not the one checked); nothing was left extracted");
                }
                String rel = p.rel();
                Path target = rel.isEmpty() ? base : base.resolve(rel);
                if (e.isDirectory()) {
                    undo.mkdirs(base, target);
                    inside(what, e.getName(), target.toRealPath(), base);
                    dirs.add(target);
                    dirEntries.add(e);
                } else {
                    Path parent = java.util.Objects.requireNonNull(target.getParent(), "an entry below the base has a parent");
                    undo.mkdirs(base, parent);
                    inside(what, e.getName(), parent.toRealPath(), base);
                    undo.moveAside(target);
                    if (e.isSymbolicLink()) {
                        Files.createSymbolicLink(target, Path.of(e.getLinkName()));
                        undo.created(target);
                    } else if (e.isLink()) {
                        Path existing = base.resolve(relative(what, e.getLinkName()));
                        inside(what, e.getName(), existing.toRealPath(LinkOption.NOFOLLOW_LINKS), base);
                        Files.createLink(target, existing);
                        undo.created(target);
                    } else {
                        try (OutputStream out = Files.newOutputStream(target, StandardOpenOption.CREATE_NEW,
                                StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
                            undo.created(target);
                            int n;
                            while ((n = tar.read(buf)) > 0) {
                                out.write(buf, 0, n);
                            }
                        }
                        applyMode(target, e.getMode());
                        Files.setLastModifiedTime(target, FileTime.from(e.getLastModifiedTime().toInstant()));
                    }
                }
                count++;
            }
            if (count != plan.size()) {
                throw new ArchiveException(what + " changed while it was being extracted (" + plan.size()
                        + " entries checked, " + count + " read); nothing was left extracted");
            }
            for (int i = dirs.size() - 1; i >= 0; i--) {
                applyMode(dirs.get(i), dirEntries.get(i).getMode());
                Files.setLastModifiedTime(dirs.get(i), FileTime.from(dirEntries.get(i).getLastModifiedTime().toInstant()));
            }
            done = true;
            undo.commit();
            return count;
        } finally {
            if (!done) {
                undo.rollback();
            }
        }
    }

    /**
     * What the second pass changed, so a failure can take it back: entries it created are removed (newest first),
     * and files it replaced, which were moved aside rather than deleted, are moved back.
     *
     * <p>Rollback is best-effort: it runs while an error is already on its way, so its own failures are dropped.
     */
    private static final class Undo {
        private final Deque<Path> created = new ArrayDeque<>();
        private final Deque<Path[]> replaced = new ArrayDeque<>();
        private int asides;

        void created(Path p) {
            created.push(p);
        }

        /** Creates the missing directories from {@code base} down to {@code dir}, remembering each one made. */
        void mkdirs(Path base, Path dir) throws IOException {
            if (dir.equals(base) || Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                return;
            }
            Path rel = base.relativize(dir);
            Path at = base;
            for (Path part : rel) {
                at = at.resolve(part.toString());
                if (!Files.exists(at, LinkOption.NOFOLLOW_LINKS)) {
                    Files.createDirectory(at);
                    created.push(at);
                }
            }
        }

        /** Moves an existing non-directory out of the way (kept until the extraction succeeds). */
        void moveAside(Path target) throws IOException {
            if (Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)) {
                throw new ArchiveException(target + " already exists as a directory; extract into an empty directory");
            }
            if (!Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
                return;
            }
            Path aside = target.resolveSibling("." + target.getFileName() + ".kiln-extract-" + ProcessHandle.current().pid()
                    + "-" + (asides++));
            Files.move(target, aside, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            replaced.push(new Path[] {target, aside});
        }

        void commit() {
            for (Path[] r : replaced) {
                quietly(() -> Files.deleteIfExists(r[1]));
            }
        }

        void rollback() {
            while (!created.isEmpty()) {
                Path p = created.pop();
                quietly(() -> Files.deleteIfExists(p));
            }
            for (Path[] r : replaced) {
                quietly(() -> Files.move(r[1], r[0], java.nio.file.StandardCopyOption.ATOMIC_MOVE));
            }
        }

        private interface Io {
            Object run() throws IOException;
        }

        private static void quietly(Io io) {
            try {
                io.run();
            } catch (IOException | RuntimeException e) {
                // best-effort: the extraction's own error is what the caller gets
            }
        }
    }

    /** Copies what the first pass reads into the spool; skips read too (a pipe cannot seek). */
    private static final class TeeInput extends FilterInputStream {
        private final FileChannel spool;

        TeeInput(InputStream in, FileChannel spool) {
            super(in);
            this.spool = spool;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = in.read(b, off, len);
            if (n > 0) {
                ByteBuffer bb = ByteBuffer.wrap(b, off, n);
                while (bb.hasRemaining()) {
                    spool.write(bb);
                }
            }
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            byte[] b = new byte[(int) Math.min(n, 64 * 1024)];
            int r = read(b, 0, b.length);
            return Math.max(r, 0);
        }

        @Override
        public int available() {
            return 0; // the JDK's file stream answers this with a seek, which a pipe refuses
        }

        @Override
        public boolean markSupported() {
            return false;
        }

        @Override
        public void close() {
            // the caller closes the source
        }
    }

    /** The entry's path relative to the target, '/'-separated and without {@code .} components. */
    private static String relative(String what, String name) {
        // A drive letter with a separator (C:/, C:\\) is absolute on Windows; a colon alone is a plain name here.
        if (name.startsWith("/") || name.startsWith("\\") || name.matches("[A-Za-z]:[/\\\\].*")) {
            throw refuse(what, name, "is an absolute path");
        }
        StringBuilder out = new StringBuilder();
        for (String part : name.split("[/\\\\]")) {
            if (part.isEmpty() || part.equals(".")) {
                continue;
            }
            if (part.equals("..")) {
                throw refuse(what, name, "climbs out with '..'");
            }
            if (out.length() > 0) {
                out.append('/');
            }
            out.append(part);
        }
        return out.toString();
    }

    private static @Nullable String throughSymlink(String rel, Set<String> symlinks) {
        int slash = rel.indexOf('/');
        while (slash >= 0) {
            String prefix = rel.substring(0, slash);
            if (symlinks.contains(prefix)) {
                return prefix;
            }
            slash = rel.indexOf('/', slash + 1);
        }
        return null;
    }

    private static void checkSymlinkSyntax(String what, String name, String linkName) {
        if (linkName.isEmpty()) {
            throw refuse(what, name, "is a symlink with an empty target");
        }
        if (linkName.startsWith("/") || linkName.startsWith("\\")) {
            throw refuse(what, name, "is a symlink to the absolute path " + linkName);
        }
    }

    private static void inside(String what, String name, Path real, Path base) {
        if (!real.startsWith(base)) {
            throw new ArchiveException("Stopped extracting " + what + ": entry '" + name + "' would be written at " + real
                    + ", outside " + base + " (a symlink in the target directory?); nothing was written outside it");
        }
    }

    private static void applyMode(Path p, int mode) throws IOException {
        try {
            Files.setPosixFilePermissions(p, permissions(mode & 0777));
        } catch (UnsupportedOperationException e) {
            // not a POSIX file system: modes cannot be represented, contents still are
        }
    }

    private static Set<PosixFilePermission> permissions(int mode) {
        Set<PosixFilePermission> s = EnumSet.noneOf(PosixFilePermission.class);
        PosixFilePermission[] order = {
            PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_READ,
            PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_READ,
            PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_READ};
        for (int i = 0; i < order.length; i++) {
            if ((mode & (1 << i)) != 0) {
                s.add(order[i]);
            }
        }
        return s;
    }

    private static ArchiveException refuse(String what, String entry, String why) {
        return new ArchiveException("Refusing to extract " + what + ": entry '" + entry + "' " + why
                + "; nothing was extracted");
    }
}
