package dev.idempotency.testsupport;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The local Sentinel set-up: a primary, a replica and three Sentinels on ports of their own, the
 * replica promoted after the primary is killed, every process gone and the directory deleted after
 * {@code close()}.
 */
class LocalRedisSentinelIntegrationTests {

	@Test
	void startsAPrimaryAReplicaAndThreeSentinelsAndPromotesTheReplicaWhenThePrimaryIsKilled() {
		List<Integer> ports = new ArrayList<>();
		LocalRedisSentinel sentinel = LocalRedisSentinel.start();
		try {
			ports.addAll(sentinel.serverPorts());
			ports.addAll(sentinel.sentinelPorts());
			assertThat(ports).hasSize(5).doesNotHaveDuplicates().doesNotContain(6379, 26379);
			int primary = sentinel.primary();
			assertThat(primary).isEqualTo(sentinel.serverPorts().get(0));
			assertThat(sentinel.role(primary)).isEqualTo("master");
			int replica = sentinel.serverPorts().get(1);
			assertThat(sentinel.role(replica)).isEqualTo("slave");
			assertThat(sentinel.properties()).containsExactly(
					"spring.data.redis.sentinel.master=" + LocalRedisSentinel.MASTER,
					"spring.data.redis.sentinel.nodes=" + sentinel.nodes());
			RedisProcesses.cli(primary, "SET", "written-before-the-kill", "1");
			RedisProcesses.cli(primary, "WAIT", "1", "5000");
			long killedAt = System.nanoTime();
			assertThat(sentinel.killPrimary()).isEqualTo(primary);
			assertThat(sentinel.awaitFailover(primary, Duration.ofSeconds(30))).isEqualTo(replica);
			long failoverMillis = Duration.ofNanos(System.nanoTime() - killedAt).toMillis();
			System.out.println("Sentinel failover took " + failoverMillis + " ms");
			assertThat(sentinel.primary()).isEqualTo(replica);
			assertThat(sentinel.role(replica)).isEqualTo("master");
			assertThat(RedisProcesses.cli(replica, "GET", "written-before-the-kill").trim()).isEqualTo("1");
			assertThat(RedisProcesses.cli(replica, "SET", "written-after-the-failover", "1").trim()).isEqualTo("OK");
		}
		finally {
			sentinel.close();
		}
		for (int port : ports) {
			assertThatExceptionOfType(IOException.class)
				.isThrownBy(() -> new Socket(InetAddress.getLoopbackAddress(), port).close());
		}
		assertThat(Files.exists(sentinel.directory())).isFalse();
	}

}
