/** The Liftdesk mark: a mast and forks in a rounded square, plus the word mark. */
export function Logo({ size = 32, inverse = false, showText = true }: { size?: number; inverse?: boolean; showText?: boolean }) {
  return (
    <span className={`logo${inverse ? ' logo-inverse' : ''}`} style={{ fontSize: size * 0.62 }}>
      <LogoMark size={size} />
      {showText && <span className="logo-text">Liftdesk</span>}
    </span>
  );
}

export function LogoMark({ size = 32 }: { size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 32 32" aria-hidden="true" className="logo-mark">
      <rect width="32" height="32" rx="7" fill="currentColor" className="logo-mark-bg" />
      <path d="M10 7v15h13" fill="none" stroke="#fff" strokeWidth="3" strokeLinecap="round" strokeLinejoin="round" />
      <path d="M14 18h9" fill="none" stroke="#fff" strokeWidth="2.4" strokeLinecap="round" opacity=".75" />
      <circle cx="13" cy="25.5" r="1.6" fill="#fff" />
      <circle cx="21" cy="25.5" r="1.6" fill="#fff" />
    </svg>
  );
}
