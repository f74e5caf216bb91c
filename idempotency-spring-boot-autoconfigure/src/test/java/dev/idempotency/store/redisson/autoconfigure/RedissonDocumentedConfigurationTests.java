package dev.idempotency.store.redisson.autoconfigure;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.autoconfigure.store.IdempotencyStoreAutoConfiguration;
import dev.idempotency.core.DuplicateFilter;
import dev.idempotency.core.IdempotencyLock;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.filter.autoconfigure.IdempotencyFilterAutoConfiguration;
import dev.idempotency.redis.filter.autoconfigure.IdempotencyRedisRecentKeysFilterAutoConfiguration;
import dev.idempotency.store.jdbc.autoconfigure.IdempotencyJdbcStoreAutoConfiguration;
import dev.idempotency.store.redis.autoconfigure.IdempotencyRedisStoreAutoConfiguration;
import dev.idempotency.store.redisson.RedissonBloomFilter;
import dev.idempotency.store.redisson.RedissonIdempotencyLock;
import dev.idempotency.store.redisson.RedissonIdempotencyStore;
import dev.idempotency.support.DuplicateFilterChain;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

/**
 * Every properties snippet of {@code docs/redisson.md} starts an application (with a mock
 * {@code RedissonClient} and a DataSource) and configures what it says.
 */
class RedissonDocumentedConfigurationTests {

	private static final Pattern SNIPPET = Pattern.compile("```properties\\n(.*?)```", Pattern.DOTALL);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, TransactionAutoConfiguration.class,
				DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
				IdempotencyRedissonAutoConfiguration.class, IdempotencyStoreAutoConfiguration.class,
				IdempotencyJdbcStoreAutoConfiguration.class, IdempotencyRedisStoreAutoConfiguration.class,
				IdempotencyAutoConfiguration.class, IdempotencyFilterAutoConfiguration.class,
				IdempotencyRedisRecentKeysFilterAutoConfiguration.class,
				IdempotencyRedissonBloomFilterAutoConfiguration.class))
		.withBean("redisson", RedissonClient.class, () -> mock(RedissonClient.class))
		.withPropertyValues("spring.datasource.generate-unique-name=true");

	@Test
	void everySnippetConfiguresWhatItSays() throws IOException {
		List<Properties> snippets = snippets();
		assertThat(snippets).hasSizeGreaterThanOrEqualTo(3);
		assertThat(snippets).anySatisfy((snippet) -> assertThat(snippet).containsKeys("idempotency.store.type",
				"idempotency.redisson.lock.enabled"));
		for (Properties snippet : snippets) {
			this.contextRunner.withPropertyValues(pairs(snippet)).run((context) -> {
				assertThat(context).hasNotFailed();
				if ("redisson".equals(snippet.getProperty("idempotency.store.type"))) {
					assertThat(context).getBean(IdempotencyStore.class).isInstanceOf(RedissonIdempotencyStore.class);
					assertThat(context.getBean(RedissonIdempotencyStore.class).getKeyPrefix())
						.isEqualTo(snippet.getProperty("idempotency.redisson.key-prefix", "idempotency:"));
				}
				if ("true".equals(snippet.getProperty("idempotency.redisson.lock.enabled"))) {
					RedissonIdempotencyLock lock = context.getBean(RedissonIdempotencyLock.class);
					assertThat(lock.getWaitTime()).isEqualTo(
							DurationStyle.detectAndParse(snippet.getProperty("idempotency.redisson.lock.wait-time", "10s")));
					assertThat(lock.getKeyPrefix())
						.isEqualTo(snippet.getProperty("idempotency.redisson.lock.key-prefix", "idempotency-lock:"));
				}
				else {
					assertThat(context).doesNotHaveBean(IdempotencyLock.class);
				}
				if (snippet.getProperty("idempotency.filter.layers", "").contains("redisson-bloom")) {
					assertThat(context.getBean(DuplicateFilterChain.class).filters()).extracting(DuplicateFilter::name)
						.contains("redisson-bloom");
					assertThat(context).hasSingleBean(RedissonBloomFilter.class);
				}
			});
		}
	}

	private static String[] pairs(Properties snippet) {
		return snippet.stringPropertyNames().stream().map((name) -> name + "=" + snippet.getProperty(name))
			.toArray(String[]::new);
	}

	private static List<Properties> snippets() throws IOException {
		Path page = Stream.of(Path.of("docs", "redisson.md"), Path.of("..", "docs", "redisson.md"))
			.filter(Files::isRegularFile)
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("docs/redisson.md not found"));
		Matcher matcher = SNIPPET.matcher(Files.readString(page, StandardCharsets.UTF_8));
		List<Properties> snippets = new ArrayList<>();
		while (matcher.find()) {
			Properties properties = new Properties();
			properties.load(new StringReader(matcher.group(1)));
			snippets.add(properties);
		}
		return snippets;
	}

}
