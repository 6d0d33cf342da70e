import { useState } from 'react';
import { useNavigate } from 'react-router';
import { website } from '../config/website';
import { setLocked } from '../store/common';

/** Locks the session: asks a lock password first when none is set, then goes to /lock after 100 ms. */
export function useLock() {
  const navigate = useNavigate();
  const [asking, setAsking] = useState(false);
  const lock = () => {
    setTimeout(() => {
      setLocked(true);
      void navigate(website.lockPage);
    }, website.lockDelay);
  };
  const start = (hasPassword: boolean) => {
    if (!hasPassword) setAsking(true);
    else lock();
  };
  return { asking, setAsking, lock, start };
}

