package dev.kiln.icons;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class IconsTest {

    @Test
    void everySize_isAPngOfThatSize() throws Exception {
        for (int size : Icons.SIZES) {
            try (InputStream in = Icons.appIconPng(size)) {
                byte[] head = in.readNBytes(24);
                assertThat(head).startsWith((byte) 0x89, (byte) 'P', (byte) 'N', (byte) 'G');
                ByteBuffer ihdr = ByteBuffer.wrap(head, 16, 8);
                assertThat(ihdr.getInt()).as("width of %d px icon", size).isEqualTo(size);
                assertThat(ihdr.getInt()).as("height of %d px icon", size).isEqualTo(size);
            }
        }
    }

    @Test
    void svgSource_isShipped() throws Exception {
        try (InputStream in = Icons.appIconSvg()) {
            assertThat(new String(in.readAllBytes())).contains("<svg");
        }
    }

    @Test
    void unknownSize_isRefused() {
        assertThatThrownBy(() -> Icons.appIconPng(17)).hasMessageContaining("sizes are");
    }
}
