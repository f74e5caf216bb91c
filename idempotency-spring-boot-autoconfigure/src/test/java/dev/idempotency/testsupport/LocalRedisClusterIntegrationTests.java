package dev.idempotency.testsupport;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The local cluster: three primaries and three replicas on ports of its own, a replica promoted
 * after a primary is killed, every process gone and the directory deleted after {@code close()}.
 */
class LocalRedisClusterIntegrationTests {

	@Test
	void startsThreePrimariesAndThreeReplicasAndPromotesAReplicaWhenAPrimaryIsKilled() {
		List<Integer> ports;
		LocalRedisCluster cluster = LocalRedisCluster.start();
		try {
			ports = cluster.ports();
			assertThat(ports).hasSize(6).doesNotHaveDuplicates().doesNotContain(6379);
			assertThat(cluster.primaries()).hasSize(3);
			assertThat(cluster.replicas()).hasSize(3);
			assertThat(cluster.nodes()).startsWith("127.0.0.1:").contains(",");
			int killed = cluster.primaryOf("some-key");
			assertThat(cluster.primaries()).contains(killed);
			cluster.kill(killed);
			cluster.awaitHealthy(Duration.ofSeconds(30));
			assertThat(cluster.primaries()).hasSize(3).doesNotContain(killed);
			assertThat(cluster.primaryOf("some-key")).isNotEqualTo(killed);
		}
		finally {
			cluster.close();
		}
		for (int port : ports) {
			assertThatExceptionOfType(IOException.class)
				.isThrownBy(() -> new Socket(InetAddress.getLoopbackAddress(), port).close());
		}
		assertThat(Files.exists(cluster.directory())).isFalse();
	}

}
