package dev.idempotency.benchmarks.stream;

/**
 * One way of consuming the benchmark's Redis stream (a variant of the stream suite): its name, its
 * stream and group, whether it deduplicates, and consumers that start and stop per round.
 */
abstract class StreamConsumer implements AutoCloseable {

	private final String name;

	private final String stream;

	private final String group;

	private final boolean dedups;

	StreamConsumer(String name, String stream, String group, boolean dedups) {
		this.name = name;
		this.stream = stream;
		this.group = group;
		this.dedups = dedups;
	}

	String name() {
		return this.name;
	}

	String stream() {
		return this.stream;
	}

	String group() {
		return this.group;
	}

	/** Whether this variant deduplicates; one that does not is checked against "every delivery applied". */
	boolean dedups() {
		return this.dedups;
	}

	/** The name prefix of this variant's consumer threads, whose CPU and allocations a round reports. */
	abstract String consumerThreadPrefix();

	abstract void start();

	abstract void stop();

	@Override
	public abstract void close();

}
