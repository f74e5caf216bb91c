package dev.idempotency.redis.stream;

import java.lang.management.ManagementFactory;
import java.util.List;

import com.sun.management.ThreadMXBean;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.script.RedisScript;

import static org.assertj.core.api.Assertions.assertThat;

class RedisStreamScriptsTests {

	@Test
	void completeAndAcknowledgeIsTheStoresCompletionScript() {
		assertThat(RedisStreamScripts.COMPLETE_AND_ACKNOWLEDGE.getScriptAsString()).contains("XACK");
		assertThat(RedisStreamScripts.COMPLETE_AND_ACKNOWLEDGE.getSha1()).hasSize(40);
	}

	/**
	 * The acknowledger asks for the script's SHA-1 once per entry: a script backed by a classpath
	 * resource checks the resource's modification time on every call (about 3 KB of garbage and a
	 * jar lookup each), a script read once does not.
	 */
	@Test
	void askingForTheSha1AllocatesNothingPerCall() {
		ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
		long thread = Thread.currentThread().getId();
		for (RedisScript<?> script : List.of(RedisStreamScripts.COMPLETE_AND_ACKNOWLEDGE, RedisStreamScripts.AUTOCLAIM,
				RedisStreamScripts.READ_OWN_PENDING, RedisStreamScripts.DELIVER_PENDING)) {
			script.getSha1();
			long before = threads.getThreadAllocatedBytes(thread);
			for (int i = 0; i < 10_000; i++) {
				script.getSha1();
			}
			long allocated = threads.getThreadAllocatedBytes(thread) - before;
			assertThat(allocated).as("bytes allocated by 10,000 calls").isLessThan(100_000);
		}
	}

}
