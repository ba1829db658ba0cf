package dev.kiln.ui.shell;

import atlantafx.base.theme.PrimerDark;
import atlantafx.base.theme.PrimerLight;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Build step (ui/pom.xml runs it after compiling): converts AtlantaFX's two stylesheets to JavaFX's binary CSS
 * next to {@link Theme}. Parsing the 170 KB text sheet cost ≈ 200 ms of the console's first frame on a cold JVM;
 * loading the binary one ≈ 20 ms. Made by the same JavaFX that runs it, so the binary format always matches.
 */
final class BinaryStylesheets {
    private BinaryStylesheets() {
    }

    /** {@code args[0]}: the classes directory to write {@code dev/kiln/ui/shell/primer-*.bss} into. */
    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args[0]).resolve(Theme.class.getPackageName().replace('.', '/'));
        Files.createDirectories(dir);
        convert(new PrimerLight().getUserAgentStylesheet(), dir.resolve(Theme.LIGHT.binaryStylesheet()));
        convert(new PrimerDark().getUserAgentStylesheet(), dir.resolve(Theme.DARK.binaryStylesheet()));
    }

    private static void convert(String resource, Path bss) throws IOException {
        Path css = Files.createTempFile("kiln-theme", ".css");
        try (InputStream in = PrimerLight.class.getResourceAsStream(resource.startsWith("/") ? resource : "/" + resource)) {
            if (in == null) {
                throw new IOException("AtlantaFX has no stylesheet " + resource);
            }
            Files.copy(in, css, StandardCopyOption.REPLACE_EXISTING);
            javafx.css.Stylesheet.convertToBinary(css.toFile(), bss.toFile());
        } finally {
            Files.deleteIfExists(css);
        }
    }
}
