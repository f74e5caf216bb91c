package dev.idempotency.store.redisson.autoconfigure;

import java.time.Duration;
import java.util.List;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.BaseConfig;
import org.redisson.config.ClusterServersConfig;
import org.redisson.config.Config;
import org.redisson.config.ReadMode;
import org.redisson.config.SentinelServersConfig;

import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;
import org.springframework.util.StringUtils;

/**
 * Builds a {@link RedissonClient} from the {@code spring.data.redis.*} properties an application
 * already has, choosing the server as Spring Boot's own Redis configuration does: Sentinel when
 * {@code sentinel.master} is set ({@code sentinel.nodes}, {@code sentinel.username},
 * {@code sentinel.password}), else a Cluster when {@code cluster.nodes} is set, else one server
 * ({@code host}, localhost, and {@code port}, 6379). Common to all: {@code database} (not for a
 * Cluster), {@code username}, {@code password}, {@code ssl.enabled}, {@code timeout} and
 * {@code connect-timeout}. {@code url} is not read: an application that needs more declares its own
 * {@code RedissonClient} (for example with {@code redisson-spring-boot-starter}).
 */
final class SpringDataRedisClients {

	private static final String PREFIX = "spring.data.redis.";

	private SpringDataRedisClients() {
	}

	static RedissonClient create(Environment environment) {
		return Redisson.create(config(environment));
	}

	static Config config(Environment environment) {
		Binder binder = Binder.get(environment);
		boolean ssl = binder.bind(PREFIX + "ssl.enabled", Boolean.class).orElse(false);
		String scheme = ssl ? "rediss://" : "redis://";
		int database = binder.bind(PREFIX + "database", Integer.class).orElse(0);
		String sentinelMaster = binder.bind(PREFIX + "sentinel.master", String.class).orElse(null);
		List<String> clusterNodes = binder.bind(PREFIX + "cluster.nodes", Bindable.listOf(String.class))
			.orElse(List.of());
		Config config = new Config();
		BaseConfig<?> server;
		if (StringUtils.hasText(sentinelMaster)) {
			// Reads from the primary: a claim's GET on a lagging replica would see a completed key as
			// still in progress (Redisson reads from replicas by default).
			SentinelServersConfig sentinel = config.useSentinelServers()
				.setMasterName(sentinelMaster)
				.setDatabase(database)
				.setReadMode(ReadMode.MASTER);
			for (String node : binder.bind(PREFIX + "sentinel.nodes", Bindable.listOf(String.class))
				.orElse(List.of())) {
				sentinel.addSentinelAddress(scheme + node.trim());
			}
			String sentinelUsername = binder.bind(PREFIX + "sentinel.username", String.class).orElse(null);
			if (StringUtils.hasText(sentinelUsername)) {
				sentinel.setSentinelUsername(sentinelUsername);
			}
			String sentinelPassword = binder.bind(PREFIX + "sentinel.password", String.class).orElse(null);
			if (StringUtils.hasText(sentinelPassword)) {
				sentinel.setSentinelPassword(sentinelPassword);
			}
			server = sentinel;
		}
		else if (!clusterNodes.isEmpty()) {
			ClusterServersConfig cluster = config.useClusterServers().setReadMode(ReadMode.MASTER);
			for (String node : clusterNodes) {
				cluster.addNodeAddress(scheme + node.trim());
			}
			server = cluster;
		}
		else {
			String host = binder.bind(PREFIX + "host", String.class).orElse("localhost");
			int port = binder.bind(PREFIX + "port", Integer.class).orElse(6379);
			server = config.useSingleServer().setAddress(scheme + host + ":" + port).setDatabase(database);
		}
		String username = binder.bind(PREFIX + "username", String.class).orElse(null);
		if (StringUtils.hasText(username)) {
			config.setUsername(username);
		}
		String password = binder.bind(PREFIX + "password", String.class).orElse(null);
		if (StringUtils.hasText(password)) {
			config.setPassword(password);
		}
		binder.bind(PREFIX + "timeout", Duration.class).ifBound((timeout) -> server.setTimeout(millis(timeout)));
		binder.bind(PREFIX + "connect-timeout", Duration.class)
			.ifBound((timeout) -> server.setConnectTimeout(millis(timeout)));
		return config;
	}

	private static int millis(Duration duration) {
		return (int) Math.min(Integer.MAX_VALUE, duration.toMillis());
	}

}
