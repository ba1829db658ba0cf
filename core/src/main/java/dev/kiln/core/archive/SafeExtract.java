package dev.kiln.core.archive;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.zip.GZIPInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.jspecify.annotations.Nullable;

/**
 * Extraction that cannot write outside its target. Two passes: the first reads every header and refuses the
 * whole archive if any entry is absolute, climbs with {@code ..}, goes through a symlink the archive itself
 * made, or is a link that escapes; only then does the second pass write. While writing, each parent's real
 * path is checked again and files are created without following a symlink (defence in depth against a tree
 * changed by someone else during the extraction).
 */
final class SafeExtract {

    @FunctionalInterface
    interface Source {
        InputStream open() throws IOException;
    }

    private SafeExtract() {
    }

    static int extract(String what, Source source, Path into) {
        try {
            List<String> plan = check(what, source);
            Files.createDirectories(into);
            Path base = into.toRealPath();
            return write(what, source, base, plan.size());
        } catch (ArchiveException e) {
            throw e;
        } catch (IOException e) {
            throw new ArchiveException("Could not extract " + what + " into " + into + ": " + e, e);
        }
    }

    private static TarArchiveInputStream open(String what, Source source) throws IOException {
        InputStream raw = new BufferedInputStream(source.open(), 64 * 1024);
        try {
            return new TarArchiveInputStream(new GZIPInputStream(raw, 64 * 1024), "UTF-8");
        } catch (java.util.zip.ZipException e) {
            raw.close();
            throw new ArchiveException(what + " is not a gzip'd tar (" + e.getMessage() + ")", e);
        }
    }

    /** Pass 1: every entry name and link, before anything is written. */
    private static List<String> check(String what, Source source) throws IOException {
        List<String> names = new ArrayList<>();
        Set<String> symlinks = new HashSet<>();
        Set<String> files = new HashSet<>();
        try (TarArchiveInputStream tar = open(what, source)) {
            TarArchiveEntry e;
            while ((e = tar.getNextEntry()) != null) {
                String rel = relative(what, e.getName());
                String through = throughSymlink(rel, symlinks);
                if (through != null) {
                    throw refuse(what, e.getName(), "goes through the symlink " + through + " made by the archive itself");
                }
                if (e.isSymbolicLink()) {
                    checkSymlink(what, e.getName(), rel, e.getLinkName());
                    symlinks.add(rel);
                } else if (e.isLink()) {
                    String target = relative(what, e.getLinkName());
                    if (!files.contains(target)) {
                        throw refuse(what, e.getName(), "is a hard link to " + e.getLinkName()
                                + ", which is not a regular file earlier in the archive");
                    }
                    files.add(rel);
                } else if (e.isDirectory()) {
                    // nothing more to check
                } else if (e.isFile()) {
                    files.add(rel);
                } else {
                    throw refuse(what, e.getName(), "has an entry type extraction does not support (device, fifo or sparse)");
                }
                names.add(rel);
            }
        } catch (java.nio.file.NoSuchFileException ex) {
            throw new ArchiveException("Archive " + what + " does not exist", ex);
        } catch (IOException ex) {
            throw new ArchiveException(what + " is truncated or corrupt (" + ex.getMessage() + "); nothing was extracted", ex);
        }
        return names;
    }

    /** Pass 2: write. Directory modes and times are set last, deepest first, so writing into them still works. */
    private static int write(String what, Source source, Path base, int expected) throws IOException {
        List<Path> dirs = new ArrayList<>();
        List<TarArchiveEntry> dirEntries = new ArrayList<>();
        int count = 0;
        try (TarArchiveInputStream tar = open(what, source)) {
            TarArchiveEntry e;
            byte[] buf = new byte[64 * 1024];
            while ((e = tar.getNextEntry()) != null) {
                String rel = relative(what, e.getName());
                Path target = rel.isEmpty() ? base : base.resolve(rel);
                if (e.isDirectory()) {
                    Files.createDirectories(target);
                    inside(what, e.getName(), target.toRealPath(), base);
                    dirs.add(target);
                    dirEntries.add(e);
                } else {
                    Path parent = target.getParent();
                    Files.createDirectories(parent);
                    inside(what, e.getName(), parent.toRealPath(), base);
                    removeExisting(target);
                    if (e.isSymbolicLink()) {
                        Files.createSymbolicLink(target, Path.of(e.getLinkName()));
                    } else if (e.isLink()) {
                        Path existing = base.resolve(relative(what, e.getLinkName()));
                        inside(what, e.getName(), existing.toRealPath(LinkOption.NOFOLLOW_LINKS), base);
                        Files.createLink(target, existing);
                    } else {
                        try (OutputStream out = Files.newOutputStream(target, StandardOpenOption.CREATE_NEW,
                                StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
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
        }
        for (int i = dirs.size() - 1; i >= 0; i--) {
            applyMode(dirs.get(i), dirEntries.get(i).getMode());
            Files.setLastModifiedTime(dirs.get(i), FileTime.from(dirEntries.get(i).getLastModifiedTime().toInstant()));
        }
        if (count != expected) {
            throw new ArchiveException(what + " changed while it was being extracted (" + expected + " entries checked, "
                    + count + " written)");
        }
        return count;
    }

    /** The entry's path relative to the target, '/'-separated and without {@code .} components. */
    private static String relative(String what, String name) {
        if (name.startsWith("/") || name.startsWith("\\") || (name.length() > 1 && name.charAt(1) == ':')) {
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

    private static void checkSymlink(String what, String name, String rel, String linkName) {
        if (linkName.isEmpty()) {
            throw refuse(what, name, "is a symlink with an empty target");
        }
        if (linkName.startsWith("/") || linkName.startsWith("\\")) {
            throw refuse(what, name, "is a symlink to the absolute path " + linkName);
        }
        // Resolve lexically from the link's directory; climbing above the target directory is an escape.
        List<String> stack = new ArrayList<>(List.of(rel.split("/")));
        stack.remove(stack.size() - 1);
        for (String part : linkName.split("[/\\\\]")) {
            if (part.isEmpty() || part.equals(".")) {
                continue;
            }
            if (part.equals("..")) {
                if (stack.isEmpty()) {
                    throw refuse(what, name, "is a symlink to " + linkName + ", which points outside the target directory");
                }
                stack.remove(stack.size() - 1);
            } else {
                stack.add(part);
            }
        }
    }

    private static void inside(String what, String name, Path real, Path base) {
        if (!real.startsWith(base)) {
            throw new ArchiveException("Stopped extracting " + what + ": entry '" + name + "' would be written at " + real
                    + ", outside " + base + " (a symlink in the target directory?); nothing was written outside it");
        }
    }

    private static void removeExisting(Path target) throws IOException {
        if (Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)) {
            throw new ArchiveException(target + " already exists as a directory; extract into an empty directory");
        }
        Files.deleteIfExists(target);
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
