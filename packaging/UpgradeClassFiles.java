import java.io.IOException;
import java.io.OutputStream;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassFileVersion;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.ClassModel;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeTransform;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;

/**
 * Rewrites the Java 5 class files of a jar (picocli's) as Java 8 ones with stack maps, unchanged otherwise: the JVM's
 * class archive (CDS, JDK 25's AOT cache) leaves out every class older than Java 6 ("Old class has been linked"),
 * so without this each `kiln` command line parsed and verified picocli's 160 classes again with the old verifier.
 * Run by build.sh on JDK 24+ (the java.lang.classfile API): {@code java UpgradeClassFiles.java IN.jar OUT.jar}.
 * Prints how many class files it rewrote; fails on a jar it cannot rewrite whole.
 */
public final class UpgradeClassFiles {
    private static final int TARGET_MAJOR = 52; // Java 8: split verifier, no jsr/ret (the jar has none: checked below)

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: java UpgradeClassFiles.java IN.jar OUT.jar");
        }
        Path in = Path.of(args[0]);
        Path out = Path.of(args[1]);
        int rewritten = 0;
        try (URLClassLoader jar = new URLClassLoader(new URL[] {in.toUri().toURL()}, null);
                ZipInputStream zin = new ZipInputStream(Files.newInputStream(in));
                OutputStream os = Files.newOutputStream(out);
                ZipOutputStream zout = new ZipOutputStream(os)) {
            // Stack maps merge types, so the rewrite must know the jar's own class hierarchy as well as the JDK's.
            ClassFile cf = ClassFile.of(ClassFile.ClassHierarchyResolverOption.of(
                    ClassHierarchyResolver.defaultResolver().orElse(ClassHierarchyResolver.ofResourceParsing(jar))));
            for (ZipEntry e; (e = zin.getNextEntry()) != null; ) {
                byte[] bytes = zin.readAllBytes();
                if (e.getName().endsWith(".class") && !e.getName().endsWith("module-info.class")) {
                    ClassModel m = cf.parse(bytes);
                    if (m.majorVersion() < 50) {
                        bytes = cf.transformClass(m, ClassTransform.transformingMethodBodies(CodeTransform.ACCEPT_ALL)
                                .andThen((b, el) -> {
                                    if (el instanceof ClassFileVersion) {
                                        b.withVersion(TARGET_MAJOR, 0);
                                    } else {
                                        b.with(el);
                                    }
                                }));
                        ClassModel check = cf.parse(bytes);
                        if (check.majorVersion() != TARGET_MAJOR || !cf.verify(check).isEmpty()) {
                            throw new IOException(e.getName() + " in " + in + " does not verify after the rewrite: " + cf.verify(check));
                        }
                        rewritten++;
                    }
                }
                ZipEntry copy = new ZipEntry(e.getName());
                copy.setTime(e.getTime());
                zout.putNextEntry(copy);
                zout.write(bytes);
                zout.closeEntry();
            }
        }
        System.out.println("UpgradeClassFiles: " + rewritten + " class files of " + in.getFileName() + " now Java 8");
    }

    private UpgradeClassFiles() {
    }
}
