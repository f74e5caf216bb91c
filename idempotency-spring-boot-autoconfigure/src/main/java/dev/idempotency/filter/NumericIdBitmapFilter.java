package dev.idempotency.filter;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.idempotency.core.IdempotencyKey;
import org.roaringbitmap.longlong.Roaring64NavigableMap;

/**
 * An exact local bitmap (RoaringBitmap) of completed numeric ids, one per namespace, for keys that
 * are increasing numbers: id {@code base + n} is bit {@code n}. A learned id is
 * {@link Answer#COMPLETED} (the bitmap holds only committed keys, and exactly); an id it never
 * learned is {@link Answer#ABSENT} once ready. A key that is not a number, or is below the base,
 * is {@link Answer#UNKNOWN}: the next layer decides. Compressed runs keep dense ids small (a few
 * bits each).
 * <p>
 * It never forgets: a redelivery after the store's retention is still answered as a duplicate.
 * Sound for {@code ABSENT} when every key reaches this instance; otherwise only the layers after it
 * are skipped and the store decides.
 *
 * @since 0.2.0
 */
public final class NumericIdBitmapFilter implements RebuildableFilter {

	private final long base;

	private final Map<String, Roaring64NavigableMap> bitmaps = new ConcurrentHashMap<>();

	private volatile boolean ready = true;

	/**
	 * Creates an empty bitmap, ready at once.
	 * @param base the id that maps to bit 0; smaller ids fall through
	 */
	public NumericIdBitmapFilter(long base) {
		this.base = base;
	}

	@Override
	public String name() {
		return "bitmap";
	}

	@Override
	public Answer check(IdempotencyKey key) {
		long bit = bit(key);
		if (bit < 0) {
			return Answer.UNKNOWN;
		}
		Roaring64NavigableMap bitmap = this.bitmaps.get(key.namespace());
		boolean learned;
		if (bitmap == null) {
			learned = false;
		}
		else {
			synchronized (bitmap) {
				learned = bitmap.contains(bit);
			}
		}
		if (learned) {
			return Answer.COMPLETED;
		}
		return this.ready ? Answer.ABSENT : Answer.UNKNOWN;
	}

	@Override
	public void learn(IdempotencyKey key) {
		long bit = bit(key);
		if (bit < 0) {
			return;
		}
		Roaring64NavigableMap bitmap = this.bitmaps.computeIfAbsent(key.namespace(),
				(namespace) -> new Roaring64NavigableMap());
		synchronized (bitmap) {
			bitmap.addLong(bit);
		}
	}

	@Override
	public long memoryBytes() {
		long bytes = 0;
		for (Roaring64NavigableMap bitmap : this.bitmaps.values()) {
			synchronized (bitmap) {
				bytes += bitmap.getLongSizeInBytes();
			}
		}
		return bytes;
	}

	@Override
	public void rebuildStarted() {
		this.ready = false;
	}

	@Override
	public void rebuildFinished() {
		this.ready = true;
	}

	@Override
	public boolean ready() {
		return this.ready;
	}

	/** The key's bit, or -1 when it is not a number at or above the base. */
	private long bit(IdempotencyKey key) {
		String value = key.value();
		if (value.isEmpty() || value.length() > 19) {
			return -1;
		}
		long id;
		try {
			id = Long.parseLong(value);
		}
		catch (NumberFormatException ex) {
			return -1;
		}
		return (id >= this.base) ? id - this.base : -1;
	}

}
