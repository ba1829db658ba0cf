import java.io.PrintWriter;
import java.util.spi.ToolProvider;

/**
 * Adds the compiled module descriptors to the AWS SDK's jars in one JVM: build.sh used to start one `jar --update`
 * per jar, and 32 JVM starts were most of that build step. Each triple of arguments is one jar:
 * {@code java AddModuleDescriptors.java JAR VERSION CLASSES_DIR …} ({@code -} for a jar without a version); the same
 * `jar --update --file JAR [--module-version VERSION] -C CLASSES_DIR module-info.class` as before, in process.
 * Stops at the first jar the tool refuses, naming it.
 */
public final class AddModuleDescriptors {
    public static void main(String[] args) {
        if (args.length == 0 || args.length % 3 != 0) {
            throw new IllegalArgumentException("usage: java AddModuleDescriptors.java (JAR VERSION|- CLASSES_DIR)...");
        }
        ToolProvider jar = ToolProvider.findFirst("jar").orElseThrow(() -> new IllegalStateException("this JDK has no jar tool"));
        PrintWriter out = new PrintWriter(System.out, true);
        PrintWriter err = new PrintWriter(System.err, true);
        for (int i = 0; i < args.length; i += 3) {
            String file = args[i];
            String version = args[i + 1];
            String classes = args[i + 2];
            String[] update = "-".equals(version)
                    ? new String[] {"--update", "--file", file, "-C", classes, "module-info.class"}
                    : new String[] {"--update", "--file", file, "--module-version", version, "-C", classes, "module-info.class"};
            int status = jar.run(out, err, update);
            if (status != 0) {
                err.println("AddModuleDescriptors: cannot add a module descriptor to " + file + " (jar exited " + status + ")");
                System.exit(1);
            }
        }
    }
}
