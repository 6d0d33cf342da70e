import { CrudPage } from '../../components/CrudPage';
import { dict } from '../../resources/system/dict';

/** Every dictionary entry in one tree table. */
export default function DictHorizontal() {
  return (
    <div className="page">
      <CrudPage config={dict.tree} />
    </div>
  );
}
