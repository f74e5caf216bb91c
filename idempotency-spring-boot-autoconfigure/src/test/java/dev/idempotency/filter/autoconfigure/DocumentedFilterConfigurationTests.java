package dev.idempotency.filter.autoconfigure;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.idempotency.autoconfigure.IdempotencyFilterProperties;
import dev.idempotency.core.DuplicateFilter;
import dev.idempotency.filter.BloomDuplicateFilter;
import dev.idempotency.redis.filter.RedisRecentKeysFilter;
import dev.idempotency.redis.filter.autoconfigure.IdempotencyRedisRecentKeysFilterAutoConfiguration;
import dev.idempotency.store.redisson.autoconfigure.IdempotencyRedissonBloomFilterAutoConfiguration;
import dev.idempotency.support.DuplicateFilterChain;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/** The YAML snippet at the top of {@code docs/filters.md} starts the chain it describes. */
class DocumentedFilterConfigurationTests {

	private static final Path PAGE = Path.of("../docs/filters.md");

	@Test
	void theSnippetConfiguresBloomThenRedisRecent() throws IOException {
		String page = Files.readString(PAGE, StandardCharsets.UTF_8);
		int start = page.indexOf("```yaml\n") + "```yaml\n".length();
		String yaml = page.substring(start, page.indexOf("```", start));
		List<PropertySource<?>> sources = new YamlPropertySourceLoader().load("filters.md",
				new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8)));
		Map<?, ?> properties = (Map<?, ?>) sources.get(0).getSource();
		String[] pairs = properties.entrySet()
			.stream()
			.map((entry) -> entry.getKey() + "=" + entry.getValue())
			.toArray(String[]::new);
		assertThat(pairs).hasSizeGreaterThan(4);
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(IdempotencyFilterAutoConfiguration.class,
				IdempotencyRedisRecentKeysFilterAutoConfiguration.class,
				IdempotencyRedissonBloomFilterAutoConfiguration.class))
			.withBean(RedisConnectionFactory.class, LettuceConnectionFactory::new)
			.withPropertyValues(pairs)
			.run((context) -> {
				assertThat(context.getBean(DuplicateFilterChain.class).filters()).extracting(DuplicateFilter::name)
					.containsExactly("bloom", "redis-recent");
				assertThat(context.getBean(BloomDuplicateFilter.class).memoryBytes())
					.isEqualTo(2 * BloomDuplicateFilter.generationBytes(1_000_000, 0.01));
				assertThat(context.getBean(RedisRecentKeysFilter.class).timeToLive()).isEqualTo(Duration.ofDays(1));
				assertThat(context.getBean(IdempotencyFilterProperties.class).getRebuildWindow())
					.isEqualTo(Duration.ofDays(1));
			});
	}

}
