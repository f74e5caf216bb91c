package dev.idempotency.filter.autoconfigure;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.google.common.hash.BloomFilter;
import dev.idempotency.autoconfigure.ConditionalOnFilterLayer;
import dev.idempotency.autoconfigure.IdempotencyFilterProperties;
import dev.idempotency.autoconfigure.store.IdempotencyStoreAutoConfiguration;
import dev.idempotency.core.CompletedKeySource;
import dev.idempotency.core.DuplicateFilter;
import dev.idempotency.core.DuplicateFilterListener;
import dev.idempotency.filter.BloomDuplicateFilter;
import dev.idempotency.filter.FilterRebuild;
import dev.idempotency.filter.FilterRebuilds;
import dev.idempotency.filter.NumericIdBitmapFilter;
import dev.idempotency.filter.RebuildableFilter;
import dev.idempotency.support.DuplicateFilterChain;
import org.roaringbitmap.longlong.Roaring64NavigableMap;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.util.function.SingletonSupplier;

/**
 * The duplicate filter chain ({@code idempotency.filter.*}), off by default: the layers that
 * {@code idempotency.filter.layers} lists, in that order, in front of every {@code @Idempotent}
 * method's store, the local layers ({@code bloom}, {@code bitmap}) and their rebuild from the store
 * at start-up. The shared layers come from their technologies' auto-configurations
 * ({@code redis-recent} from the Redis one, {@code redisson-bloom} from Redisson's); the chain finds
 * every {@code DuplicateFilter} bean by its name.
 *
 * @since 0.2.0
 */
@AutoConfiguration(after = IdempotencyStoreAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "idempotency.filter.enabled")
@EnableConfigurationProperties(IdempotencyFilterProperties.class)
@Import({ IdempotencyFilterAutoConfiguration.BloomLayer.class, IdempotencyFilterAutoConfiguration.BitmapLayer.class })
public final class IdempotencyFilterAutoConfiguration {

	@Bean
	DuplicateFilterChain idempotencyDuplicateFilterChain(IdempotencyFilterProperties properties,
			ObjectProvider<DuplicateFilter> filters, ObjectProvider<DuplicateFilterListener> listeners) {
		Map<String, DuplicateFilter> byName = new LinkedHashMap<>();
		filters.orderedStream().forEach((filter) -> byName.putIfAbsent(filter.name(), filter));
		List<DuplicateFilter> layers = new ArrayList<>();
		for (String layer : properties.getLayers()) {
			DuplicateFilter filter = byName.get(layer);
			if (filter == null) {
				throw new IllegalStateException("idempotency.filter.layers lists '" + layer + "', but there is no "
						+ "such DuplicateFilter: " + requirement(layer) + " (filters found: "
						+ byName.keySet() + ")");
			}
			layers.add(filter);
		}
		// Looked up once, at the first answer: the chain tells the listeners of every answer.
		return new DuplicateFilterChain(layers, properties.getNamespaces(),
				SingletonSupplier.of(() -> listeners.orderedStream().toList()));
	}

	@Bean
	FilterRebuilds idempotencyFilterRebuilds(IdempotencyFilterProperties properties, DuplicateFilterChain chain,
			ObjectProvider<CompletedKeySource> sources, ObjectProvider<DuplicateFilterListener> listeners) {
		List<FilterRebuild> rebuilds = new ArrayList<>();
		Duration window = properties.getRebuildWindow();
		List<CompletedKeySource> stores = sources.orderedStream().toList();
		if (!window.isZero() && !window.isNegative() && stores.size() == 1) {
			for (DuplicateFilter filter : chain.filters()) {
				if (filter instanceof RebuildableFilter rebuildable) {
					rebuilds.add(rebuild(rebuildable, stores.get(0), properties, listeners));
				}
			}
		}
		return new FilterRebuilds(rebuilds);
	}

	private static String requirement(String layer) {
		return switch (layer) {
			case "bloom" -> "add com.google.guava:guava to the class path";
			case "bitmap" -> "add org.roaringbitmap:RoaringBitmap to the class path";
			case "redis-recent" -> "add spring-boot-starter-data-redis (a RedisConnectionFactory)";
			case "redisson-bloom" -> "add org.redisson:redisson (a RedissonClient)";
			default -> "declare a DuplicateFilter bean whose name() is '" + layer + "'";
		};
	}

	private static FilterRebuild rebuild(RebuildableFilter filter, CompletedKeySource source,
			IdempotencyFilterProperties properties, ObjectProvider<DuplicateFilterListener> listeners) {
		return new FilterRebuild(filter, source, properties.getRebuildWindow(),
				properties.getRebuildPageSize(), Duration.ofSeconds(30), Clock.systemUTC(),
				() -> listeners.orderedStream().toList());
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(BloomFilter.class)
	@ConditionalOnFilterLayer("bloom")
	static class BloomLayer {

		@Bean
		BloomDuplicateFilter idempotencyBloomFilter(IdempotencyFilterProperties properties) {
			return new BloomDuplicateFilter(properties.getBloom().getExpectedInsertions(),
					properties.getBloom().getFalsePositiveRate());
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(Roaring64NavigableMap.class)
	@ConditionalOnFilterLayer("bitmap")
	static class BitmapLayer {

		@Bean
		NumericIdBitmapFilter idempotencyBitmapFilter(IdempotencyFilterProperties properties) {
			return new NumericIdBitmapFilter(properties.getBitmap().getBase());
		}

	}

}
