package dev.kiln.core.startup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which Node has a compile cache, and which servers it applies to. */
class NodeCompileCacheTest {

    @Test
    void supported_fromNode22Point1() {
        assertThat(NodeCompileCache.supported("v20.20.2")).isFalse();
        assertThat(NodeCompileCache.supported("v22.0.0")).isFalse();
        assertThat(NodeCompileCache.supported("v22.1.0")).isTrue();
        assertThat(NodeCompileCache.supported("v24.22.3")).isTrue();
        assertThat(NodeCompileCache.supported("")).isFalse();
    }

    @Test
    void audit_notANodeServer_saysWhatHelpsInstead() {
        ServerConfig npx = ServerConfig.stdio("m", Path.of("/tmp"), "npx", List.of("-y", "pkg@1.0.0"), Map.of());
        ServerConfig py = ServerConfig.stdio("p", Path.of("/tmp"), "python3", List.of("-m", "x"), Map.of());

        assertThatThrownBy(() -> NodeCompileCache.requireNode(npx)).isInstanceOf(BytecodeException.class)
                .hasMessageContaining("server m").hasMessageContaining("kiln warm --servers");
        assertThatThrownBy(() -> NodeCompileCache.requireNode(py)).hasMessageContaining("not launched as node");
    }
}
