/**
 * The site's mark beside a fictional (operator-run) profile's name, named for screen readers. Every list
 * and card shows it this way (the Astro pages through `FictionalIcon.astro`, which renders the same markup).
 */
export function FictionalIcon({ icon, label }: { icon: string; label: string }) {
  return <span className="fictional-icon" role="img" title={label} aria-label={label}>{icon}</span>;
}
